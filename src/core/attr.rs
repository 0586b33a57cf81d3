//! Attributes on the file root, groups and datasets: numbers (a scalar or a 1-D array of any
//! dtype) and UTF-8 strings. Writes are collective (and agreed, value included: HDF5 writes
//! rank 0's value only); reads are local.

use crate::core::file::File;
use crate::dtype::Dtype;
use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::attr::Place;
use crate::mpi::agree::agree;
use crate::mpi::digest::Args;

/// An attribute value.
pub enum AttrValue<'a> {
    /// Elements of `dtype` in C order; `shape` empty for a scalar.
    Numbers {
        dtype: Dtype,
        shape: Vec<u64>,
        data: &'a [u8],
    },
    Text(&'a str),
}

/// Create (or replace) the attribute at `place` with `value` (collective, no agreement: the
/// caller has made sure every rank passes the same).
pub(crate) fn write_value(place: &Place<'_>, value: &AttrValue<'_>) -> Result<()> {
    match value {
        AttrValue::Numbers { dtype, shape, data } => {
            let t = h5::types::native(*dtype)?;
            let space = if shape.is_empty() {
                h5::space::scalar()?
            } else {
                h5::space::simple(shape)?
            };
            h5::attr::write(place, &t, &t, &space, data.as_ptr().cast())
        }
        AttrValue::Text(text) => {
            let t = h5::types::utf8_string()?;
            let c_text = h5::c_string(text)?;
            let ptr = c_text.as_ptr();
            // A variable-length string is written from a pointer to its `char *`.
            let p: *const *const std::ffi::c_char = &ptr;
            h5::attr::write(place, &t, &t, &h5::space::scalar()?, p.cast())
        }
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
pub struct AttrName {
    pub object: String,
    pub name: String,
}

impl AttrName {
    fn check(self) -> Result<AttrName> {
        if self.object.is_empty() || self.name.is_empty() {
            return Err(Error::invalid(format!(
                "object {:?} and name {:?} must both be non-empty (the root group is \"/\")",
                self.object, self.name
            )));
        }
        Ok(self)
    }

    fn describe(&self) -> String {
        format!("attribute {:?} of {:?}", self.name, self.object)
    }
}

impl File {
    fn place<'a>(&'a self, at: &'a AttrName) -> Place<'a> {
        Place {
            file: &self.id,
            object: &at.object,
            name: &at.name,
        }
    }

    /// Write an attribute (collective; every rank passes the same place and value). `op`
    /// is the C function's name, for the agreement and its messages.
    pub fn write_attr(&self, op: &str, request: Result<(AttrName, AttrValue<'_>)>) -> Result<()> {
        let request = request.and_then(|(at, value)| {
            if !self.shared.writable {
                return Err(Error::new(
                    ErrorKind::ReadOnly,
                    format!("the file {:?} was opened read-only", self.shared.path),
                ));
            }
            let at = at.check()?;
            self.claim_room(&at.describe(), 0)?;
            Ok((at, value))
        });
        let args = request.as_ref().map(|(at, value)| {
            let args = Args::of(op)
                .text("object", &at.object)
                .text("name", &at.name);
            match value {
                AttrValue::Numbers { dtype, shape, data } => args
                    .text("dtype", dtype.name())
                    .numbers("shape", shape)
                    .bytes("value", data),
                AttrValue::Text(text) => args.text("dtype", "string").text("value", text),
            }
        });
        agree(&self.shared.comm, op, args, &[])?;
        let (at, value) = request?;
        write_value(&self.place(&at), &value).map_err(|e| {
            self.shared
                .metadata_failure(e.context(format_args!("{}", at.describe())))
        })
    }

    fn open_attr(&self, at: &AttrName) -> Result<(h5::attr::Opened, AttrInfo)> {
        let context = |e: Error| e.context(format_args!("{}", at.describe()));
        let place = self.place(at);
        if !h5::attr::exists(&place, true).map_err(context)? {
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
    pub fn attr_info(&self, at: AttrName) -> Result<AttrInfo> {
        let at = at.check()?;
        let (opened, info) = self.open_attr(&at)?;
        opened.close()?;
        Ok(info)
    }

    /// Read a numeric attribute into `buf` (local); returns the number of elements. `buf`
    /// too small for them is an error, not a truncation.
    pub fn read_attr(&self, at: AttrName, mem_dtype: Dtype, buf: &mut [u8]) -> Result<u64> {
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
    pub fn read_attr_text(&self, at: AttrName) -> Result<Vec<u8>> {
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
