//! Attributes on the file root, groups and datasets: numbers (a scalar or a 1-D array of any
//! dtype) and UTF-8 strings. Writes are collective (and agreed, value included: HDF5 writes
//! rank 0's value only); reads are local.

use crate::core::collective::{Agreed, Args, Collective};
use crate::core::file::File;
use crate::core::names::{self, Wanted};
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::h5::id::Id;

/// An attribute value.
pub(crate) enum AttrValue<'a> {
    /// Elements of `dtype` in C order; `shape` empty for a scalar.
    Numbers {
        dtype: Dtype,
        shape: Vec<u64>,
        data: &'a [u8],
    },
    Text(&'a str),
}

/// Create (or replace) the attribute at `place` with `value` (collective, no agreement: the
/// caller has made sure every rank passes the same). `scalar` is a scalar dataspace to
/// reuse.
pub(crate) fn write_value(place: &Place<'_>, value: &AttrValue<'_>, scalar: &Id) -> Result<()> {
    match value {
        AttrValue::Numbers { dtype, shape, data } => {
            let t = h5::types::native(*dtype)?;
            let array;
            let space = if shape.is_empty() {
                scalar
            } else {
                array = h5::space::simple(shape)?;
                &array
            };
            h5::attr::write(place, &t, &t, space, data.as_ptr().cast())
        }
        AttrValue::Text(text) => {
            let t = h5::types::utf8_string()?;
            let c_text = h5::name::c_string(text)?;
            let ptr = c_text.as_ptr();
            // A variable-length string is written from a pointer to its `char *`.
            let p: *const *const std::ffi::c_char = &ptr;
            h5::attr::write(place, &t, &t, scalar, p.cast())
        }
    }
}

/// Create (or replace) the uint64 scalar attribute `name` on `object` (collective, as
/// [`write_value`]).
pub(crate) fn write_u64(object: &Id, name: &str, value: u64, scalar: &Id) -> Result<()> {
    let place = Place {
        file: object,
        object: ".",
        name,
    };
    let value = AttrValue::Numbers {
        dtype: Dtype::Uint64,
        shape: vec![],
        data: &value.to_ne_bytes(),
    };
    write_value(&place, &value, scalar)
}

/// `dah5_attr_write`: a numeric attribute, a scalar (`shape` empty) or a 1-D array, the
/// value included in the agreement (HDF5 writes rank 0's value only).
pub struct WriteAttr<'a> {
    pub at: AttrName<'a>,
    pub dtype: Dtype,
    pub shape: Vec<u64>,
    pub data: &'a [u8],
}

impl Collective for WriteAttr<'_> {
    const NAME: &'static str = "dah5_attr_write";
    type Target = File;
    type Output = ();

    fn check(self, file: &File) -> Result<Self> {
        let at = file.check_attr_write(self.at)?;
        if !file.shared.large_attributes {
            check_fits_object_header(&at, self.data.len())?;
        }
        Ok(WriteAttr { at, ..self })
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.attr_args(Self::NAME, &self.at)
            .text("dtype", self.dtype.name())
            .numbers("shape", &self.shape)
            .bytes("value", self.data)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<()> {
        let value = AttrValue::Numbers {
            dtype: self.dtype,
            shape: self.shape,
            data: self.data,
        };
        file.write_attr(&self.at, &value)
    }
}

/// The most bytes of one message in an object header of HDF5's earliest format (the
/// default of HDF5 1.10 and 1.14): an attribute there is one message.
const OBJECT_HEADER_MESSAGE: usize = 64 << 10;
/// Room left in such a message for HDF5's description of an attribute (its type and
/// shape: at most 176 bytes measured, for a complex128 array) besides its name.
const ATTRIBUTE_DESCRIPTION: usize = 256;

/// Refuse, before HDF5 is called, a numeric attribute of `bytes` that an object header of
/// the earliest format cannot hold: HDF5 would fail with "object header message is too
/// large", after it had deleted the attribute's old value when replacing one. (A string is
/// stored apart, in the file's global heap, whatever its length.)
fn check_fits_object_header(at: &AttrName<'_>, bytes: usize) -> Result<()> {
    if bytes + at.name.len() + ATTRIBUTE_DESCRIPTION <= OBJECT_HEADER_MESSAGE {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Unsupported,
        format!(
            "{}: its value is {bytes} bytes, more than this file's format holds: it keeps an \
             attribute in its object's header, at most 64 KiB with its name and HDF5's \
             description of it (the format HDF5 1.10 and 1.14 write by default). Store the \
             values as a dataset instead (dah5_dataset_create and dah5_write_block, or \
             dah5_darray_write), with an attribute naming it if need be. Nothing was written",
            at.describe()
        ),
    ))
}

/// `dah5_attr_write_string`: a UTF-8 string attribute, agreed like [`WriteAttr`].
pub struct WriteText<'a> {
    pub at: AttrName<'a>,
    pub text: &'a str,
}

impl Collective for WriteText<'_> {
    const NAME: &'static str = "dah5_attr_write_string";
    type Target = File;
    type Output = ();

    fn check(self, file: &File) -> Result<Self> {
        let at = file.check_attr_write(self.at)?;
        Ok(WriteText { at, ..self })
    }

    fn args<'a>(&'a self, file: &'a File) -> Args<'a> {
        file.attr_args(Self::NAME, &self.at)
            .text("dtype", "string")
            .text("value", self.text)
    }

    fn act(self, file: &mut File, _: Agreed) -> Result<()> {
        file.write_attr(&self.at, &AttrValue::Text(self.text))
    }
}

/// What an attribute holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    Numbers(Dtype),
    Text,
}

/// An attribute's kind and size: elements for numbers, bytes (without a NUL) for text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttrInfo {
    pub kind: AttrKind,
    pub count: u64,
}

/// Where an attribute is: the object path ("/" for the root) and the attribute's name.
pub struct AttrName<'a> {
    pub object: &'a str,
    pub name: &'a str,
}

impl AttrName<'_> {
    fn check(self) -> Result<Self> {
        if self.object.is_empty() || self.name.is_empty() {
            return Err(Error::invalid(format!(
                "object {:?} and name {:?} must both be non-empty (the root group is \"/\")",
                self.object, self.name
            )));
        }
        names::check_object(self.object)?;
        Ok(self)
    }

    fn describe(&self) -> String {
        format!("attribute {:?} of {:?}", self.name, self.object)
    }
}

impl File {
    fn place<'a>(&'a self, at: &AttrName<'a>) -> Place<'a> {
        Place {
            file: &self.id,
            object: at.object,
            name: at.name,
        }
    }

    /// Check an attribute write this rank can check alone.
    fn check_attr_write<'a>(&self, at: AttrName<'a>) -> Result<AttrName<'a>> {
        self.shared.check_writable()?;
        let at = at.check()?;
        self.claim_room(|| at.describe(), 0, 0)?;
        Ok(at)
    }

    fn attr_args<'a>(&'a self, name: &'static str, at: &AttrName<'a>) -> Args<'a> {
        self.args(name)
            .text("object", at.object)
            .text("name", at.name)
    }

    /// Write the attribute every rank agreed on (collective). On a dataset this file holds
    /// open, through its id (HDF5 need not look the path up).
    fn write_attr(&self, at: &AttrName<'_>, value: &AttrValue<'_>) -> Result<()> {
        let open = self.shared.open_dataset(at.object).map(Id::borrowed);
        let place = match &open {
            Some(dataset) => Place {
                file: dataset,
                object: ".",
                name: at.name,
            },
            None => self.place(at),
        };
        write_value(&place, value, &self.lists.scalar).map_err(|e| {
            let e = names::explain(&self.id, at.object, Wanted::Object, false, e);
            self.shared
                .metadata_failure(e.context(format_args!("{}", at.describe())))
        })
    }

    fn open_attr(&self, at: &AttrName<'_>) -> Result<(h5::attr::Opened, AttrInfo)> {
        self.shared.check_unchanged()?;
        let context = |e: Error| e.context(format_args!("{}", at.describe()));
        let place = self.place(at);
        let exists = h5::attr::exists(&place, true)
            .map_err(|e| context(names::explain(&self.id, at.object, Wanted::Object, true, e)))?;
        if !exists {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("{} does not exist", at.describe()),
            ));
        }
        let opened = h5::attr::open(&place, true).map_err(context)?;
        let elements: u64 = opened.dims.iter().product();
        let info = match h5::types::string_kind(opened.file_type.raw())? {
            Some(fixed) if elements == 1 => AttrInfo {
                kind: AttrKind::Text,
                count: opened.read_text(fixed)?.len() as u64,
            },
            Some(_) => {
                return Err(context(Error::new(
                    ErrorKind::TypeMismatch,
                    format!("is an array of {elements} strings; dah5 reads single strings"),
                )));
            }
            None => AttrInfo {
                kind: AttrKind::Numbers(
                    h5::types::dtype_of(opened.file_type.raw()).map_err(context)?,
                ),
                count: elements,
            },
        };
        Ok((opened, info))
    }

    /// The kind and size of an attribute (local).
    pub fn attr_info(&self, at: AttrName<'_>) -> Result<AttrInfo> {
        let at = at.check()?;
        let (opened, info) = self.open_attr(&at)?;
        opened.close()?;
        Ok(info)
    }

    /// Read a numeric attribute into `buf` (local); returns the number of elements. `buf`
    /// too small for them is an error, not a truncation.
    pub fn read_attr(&self, at: AttrName<'_>, mem_dtype: Dtype, buf: &mut [u8]) -> Result<u64> {
        let at = at.check()?;
        let (opened, info) = self.open_attr(&at)?;
        let stored = match info.kind {
            AttrKind::Numbers(dtype) => dtype,
            AttrKind::Text => {
                return Err(Error::new(
                    ErrorKind::TypeMismatch,
                    format!(
                        "{} is a string; read it with dah5_attr_read_string",
                        at.describe()
                    ),
                ));
            }
        };
        if stored != mem_dtype {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!(
                    "{} is {}, not {}",
                    at.describe(),
                    stored.name(),
                    mem_dtype.name()
                ),
            ));
        }
        let needed = info.count as usize * stored.size();
        if buf.len() < needed {
            return Err(Error::invalid(format!(
                "{} has {} elements but the buffer has room for {}",
                at.describe(),
                info.count,
                buf.len() / stored.size()
            )));
        }
        opened.read(&h5::types::native(stored)?, &mut buf[..needed])?;
        opened.close()?;
        Ok(info.count)
    }

    /// The text of a string attribute (local).
    pub fn read_attr_text(&self, at: AttrName<'_>) -> Result<Vec<u8>> {
        let at = at.check()?;
        let (opened, info) = self.open_attr(&at)?;
        if info.kind != AttrKind::Text {
            return Err(Error::new(
                ErrorKind::TypeMismatch,
                format!("{} is not a string", at.describe()),
            ));
        }
        let fixed = h5::types::string_kind(opened.file_type.raw())?.flatten();
        let text = opened.read_text(fixed)?;
        opened.close()?;
        Ok(text)
    }
}
