//! HDF5 attributes, addressed by (object path, attribute name) from the file.

use std::ffi::{CStr, c_char, c_void};

use hdf5_sys::h5::H5_index_t::H5_INDEX_NAME;
use hdf5_sys::h5::H5_iter_order_t::H5_ITER_INC;
use hdf5_sys::h5::{H5free_memory, herr_t};
use hdf5_sys::h5a::{
    H5A_info_t, H5Aclose, H5Acreate2, H5Adelete, H5Aexists, H5Aexists_by_name, H5Aget_space,
    H5Aget_type, H5Aiterate2, H5Aopen_by_name, H5Aread, H5Awrite,
};
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5o::{H5Oclose, H5Oopen};
use hdf5_sys::h5p::H5P_DEFAULT;
use hdf5_sys::h5s::H5Sclose;
use hdf5_sys::h5t::H5Tclose;

use crate::error::Result;
use crate::h5::id::Id;
use crate::h5::name::c_string;
use crate::h5::{plist, space, types};

/// An attribute's location: the object at path `object` from `file` (a file, or any open
/// object: `"."` is the object itself), and the attribute's name. Functions taking
/// `independent` may be called by one rank alone (they override the file's collective
/// metadata reads); everything else is collective.
pub struct Place<'a> {
    pub file: &'a Id,
    pub object: &'a str,
    pub name: &'a str,
}

/// Create (replacing any old one) and write an attribute (collective: every rank passes the
/// same value; HDF5 writes it once). The object is looked up once (H5Oopen), not once per
/// call: on a group of 10000 datasets the by-name calls cost a third of the write; and not
/// at all when the place is an open object itself (`"."`).
pub fn write(
    place: &Place<'_>,
    file_type: &Id,
    mem_type: &Id,
    space: &Id,
    buf: *const c_void,
) -> Result<()> {
    let name = c_string(place.name)?;
    let f = place.file.raw();
    let target = if place.object == "." {
        Id::borrowed(f)
    } else {
        let object = c_string(place.object)?;
        // SAFETY: `f` is an open file or object and the path is NUL-terminated.
        h5call!(unsafe { H5Oopen(f, object.as_ptr(), H5P_DEFAULT) }, closed by H5Oclose)?
    };
    let o = target.raw();
    let (t, s) = (file_type.raw(), space.raw());
    // SAFETY: `o` is an open object, the name is NUL-terminated, `t` and `s` are a
    // datatype and a dataspace.
    let create = || h5call!(unsafe { H5Acreate2(o, name.as_ptr(), t, s, H5P_DEFAULT, H5P_DEFAULT) }, closed by H5Aclose);
    // Create first: asking whether it exists costs as much as the create, and a new
    // attribute is the common case. HDF5 refuses an existing one before it changes anything.
    let attr = match create() {
        Ok(attr) => attr,
        Err(refused) => {
            // SAFETY: as above.
            if h5call!(unsafe { H5Aexists(o, name.as_ptr()) })? <= 0 {
                return Err(refused);
            }
            // SAFETY: as above.
            h5call!(unsafe { H5Adelete(o, name.as_ptr()) })?;
            create()?
        }
    };
    let (a, m) = (attr.raw(), mem_type.raw());
    // SAFETY: `buf` holds the attribute's elements of `mem_type`, by the caller's contract.
    h5call!(unsafe { H5Awrite(a, m, buf) })?;
    attr.close()?;
    target.close()
}

/// The names of the attributes of the open object `object`, in name order (collective in a
/// parallel file).
pub fn names(object: &Id) -> Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let (o, out) = (object.raw(), (&raw mut names).cast::<c_void>());
    // SAFETY: `o` is an open object; `collect_name` gets `out`, a live Vec<String>.
    h5call!(unsafe {
        H5Aiterate2(
            o,
            H5_INDEX_NAME,
            H5_ITER_INC,
            std::ptr::null_mut(),
            Some(collect_name),
            out,
        )
    })?;
    Ok(names)
}

/// H5Aiterate2's callback: push the attribute's name onto the Vec<String> in `names`.
extern "C" fn collect_name(
    _object: hid_t,
    name: *const c_char,
    _info: *const H5A_info_t,
    names: *mut c_void,
) -> herr_t {
    // SAFETY: HDF5 passes a NUL-terminated name and our `names` pointer (see `names`).
    let (name, names) = unsafe { (CStr::from_ptr(name), &mut *names.cast::<Vec<String>>()) };
    names.push(name.to_string_lossy().into_owned());
    0
}

/// Whether the attribute exists (`independent`: this rank alone asks).
pub fn exists(place: &Place<'_>, independent: bool) -> Result<bool> {
    let (object, name) = (c_string(place.object)?, c_string(place.name)?);
    let access = access_lists(independent)?;
    let lapl = access.as_ref().map_or(H5P_DEFAULT, |(_, l)| l.raw());
    let f = place.file.raw();
    // SAFETY: `f` is an open file; both names are NUL-terminated; `lapl` is a link access list.
    let exists = h5call!(unsafe { H5Aexists_by_name(f, object.as_ptr(), name.as_ptr(), lapl) })?;
    Ok(exists > 0)
}

/// The text of the string attribute `name` of the open object `object`, if it has one
/// (collective in a parallel file, like every metadata read without `independent`).
pub fn text(object: &Id, name: &str) -> Result<Option<Vec<u8>>> {
    let place = Place {
        file: object,
        object: ".",
        name,
    };
    if !exists(&place, false)? {
        return Ok(None);
    }
    let opened = open(&place, false)?;
    let fixed = types::string_kind(opened.file_type.raw())?.flatten();
    let text = opened.read_text(fixed)?;
    opened.close()?;
    Ok(Some(text))
}

fn access_lists(independent: bool) -> Result<Option<(Id, Id)>> {
    independent.then(plist::independent_read).transpose()
}

/// An open attribute with its type and extents (empty for a scalar).
pub struct Opened {
    attr: Id,
    pub file_type: Id,
    pub dims: Vec<u64>,
}

pub fn open(place: &Place<'_>, independent: bool) -> Result<Opened> {
    let (object, name) = (c_string(place.object)?, c_string(place.name)?);
    let access = access_lists(independent)?;
    let (aapl, lapl) = access
        .as_ref()
        .map_or((H5P_DEFAULT, H5P_DEFAULT), |(a, l)| (a.raw(), l.raw()));
    let f = place.file.raw();
    // SAFETY: `f` is an open file; both names are NUL-terminated; the lists are access lists.
    let attr = h5call!(unsafe { H5Aopen_by_name(f, object.as_ptr(), name.as_ptr(), aapl, lapl) }, closed by H5Aclose)?;
    let a = attr.raw();
    // SAFETY: `a` is an open attribute; the type and space returned are ours to close.
    let file_type = h5call!(unsafe { H5Aget_type(a) }, closed by H5Tclose)?;
    // SAFETY: as above.
    let attr_space = h5call!(unsafe { H5Aget_space(a) }, closed by H5Sclose)?;
    let (dims, _) = space::extents(&attr_space)?;
    Ok(Opened {
        attr,
        file_type,
        dims,
    })
}

impl Opened {
    /// Read all elements as `mem_type` into `buf`, which has room for them.
    pub fn read(&self, mem_type: &Id, buf: &mut [u8]) -> Result<()> {
        let (a, m) = (self.attr.raw(), mem_type.raw());
        // SAFETY: `buf` has room for every element of the attribute as `mem_type`.
        h5call!(unsafe { H5Aread(a, m, buf.as_mut_ptr().cast()) })?;
        Ok(())
    }

    /// The text of a string attribute (variable-length or fixed, NUL padding dropped).
    pub fn read_text(&self, fixed_len: Option<usize>) -> Result<Vec<u8>> {
        match fixed_len {
            Some(len) => {
                let mut bytes = vec![0u8; len];
                self.read(&self.file_type, &mut bytes)?;
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(len);
                bytes.truncate(end);
                Ok(bytes)
            }
            None => {
                let mem_type = types::utf8_string()?;
                let mut ptr: *mut c_char = std::ptr::null_mut();
                let (a, m) = (self.attr.raw(), mem_type.raw());
                let p: *mut *mut c_char = &mut ptr;
                // SAFETY: a scalar variable-length string reads into one `char *`, which
                // HDF5 allocates.
                h5call!(unsafe { H5Aread(a, m, p.cast()) })?;
                if ptr.is_null() {
                    return Ok(Vec::new());
                }
                // SAFETY: HDF5 gave a NUL-terminated string, ours to free with H5free_memory.
                let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes().to_vec();
                // SAFETY: freed once, by the allocator HDF5 used.
                h5call!(unsafe { H5free_memory(ptr.cast()) })?;
                Ok(bytes)
            }
        }
    }

    pub fn close(self) -> Result<()> {
        self.attr.close()
    }
}
