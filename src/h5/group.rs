//! HDF5 groups: what they hold.

use std::ffi::{CStr, c_char, c_void};

use hdf5_sys::h5::{H5_index_t, H5_iter_order_t, herr_t};
use hdf5_sys::h5g::{H5G_info_t, H5Gclose, H5Gcreate2, H5Gget_info_by_name, H5Gopen2};
use hdf5_sys::h5i::{H5I_type_t, H5Iget_type, hid_t};
use hdf5_sys::h5l::{H5L_info_t, H5Lexists, H5Literate};
use hdf5_sys::h5o::{H5Oclose, H5Oopen};
use hdf5_sys::h5p::H5P_DEFAULT;

use crate::error::Result;
use crate::h5::id::Id;
use crate::h5::name::c_string;
use crate::h5::plist;

/// Make the group `path` (collective in a parallel file: every rank, the same path), with
/// the link creation list `lcpl` (which makes the missing groups above it when it says
/// so: `plist::link_create`).
pub fn create(loc: &Id, path: &str, lcpl: &Id) -> Result<()> {
    let c_path = c_string(path)?;
    let (l, p) = (loc.raw(), lcpl.raw());
    // SAFETY: `l` is an open file or group, `p` a link creation list, the path is
    // NUL-terminated.
    let group = h5call!(unsafe { H5Gcreate2(l, c_path.as_ptr(), p, H5P_DEFAULT, H5P_DEFAULT) }, closed by H5Gclose)?;
    group.close()
}

/// How many links the group at `path` holds.
pub fn link_count(loc: &Id, path: &str) -> Result<u64> {
    let c_path = c_string(path)?;
    let mut info = H5G_info_t::default();
    let (l, i) = (loc.raw(), &raw mut info);
    // SAFETY: `l` is an open file or object, the path is NUL-terminated, `i` is writable.
    h5call!(unsafe { H5Gget_info_by_name(l, c_path.as_ptr(), i, H5P_DEFAULT) })?;
    Ok(info.nlinks)
}

/// What a link leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Group,
    Dataset,
    Other,
}

/// Which object an open object is, within its file: its token (HDF5 1.12 and later) or its
/// address (before).
#[cfg(hdf5_object_tokens)]
type ObjectId = hdf5_sys::h5o::H5O_token_t;
#[cfg(not(hdf5_object_tokens))]
type ObjectId = hdf5_sys::h5::haddr_t;

#[cfg(hdf5_object_tokens)]
fn identity(object: &Id) -> Result<ObjectId> {
    use hdf5_sys::h5o::{H5O_INFO_BASIC, H5O_info2_t, H5Oget_info3};
    // All zeros is a valid value of every field (the basic ones are filled in).
    let mut info = std::mem::MaybeUninit::<H5O_info2_t>::zeroed();
    let (o, i) = (object.raw(), info.as_mut_ptr());
    // SAFETY: `o` is an open object, `i` points to writable room for the info.
    h5call!(unsafe { H5Oget_info3(o, i, H5O_INFO_BASIC) })?;
    // SAFETY: zeroed, then (its basic fields) filled by HDF5.
    Ok(unsafe { info.assume_init() }.token)
}

#[cfg(not(hdf5_object_tokens))]
fn identity(object: &Id) -> Result<ObjectId> {
    use hdf5_sys::h5o::{H5O_INFO_BASIC, H5O_info1_t, H5Oget_info2};
    let mut info = H5O_info1_t::default();
    let (o, i) = (object.raw(), &raw mut info);
    // SAFETY: `o` is an open object, `i` is writable.
    h5call!(unsafe { H5Oget_info2(o, i, H5O_INFO_BASIC) })?;
    Ok(info.addr)
}

/// A link of a group: its name, what it leads to, and, for a group, which one.
struct Member {
    name: String,
    kind: Kind,
    group: Option<ObjectId>,
}

/// The links of the group at `path`, by name.
fn members(loc: &Id, path: &str) -> Result<Vec<Member>> {
    let c_path = c_string(path)?;
    let l = loc.raw();
    // SAFETY: `l` is an open file or object and the path is NUL-terminated.
    let group = h5call!(unsafe { H5Gopen2(l, c_path.as_ptr(), H5P_DEFAULT) }, closed by H5Gclose)?;
    let mut names: Vec<String> = Vec::new();
    let g = group.raw();
    let out: *mut Vec<String> = &mut names;
    // SAFETY: `g` is an open group; `collect_name` gets `out`, a live Vec<String>.
    h5call!(unsafe {
        H5Literate(
            g,
            H5_index_t::H5_INDEX_NAME,
            H5_iter_order_t::H5_ITER_INC,
            std::ptr::null_mut(),
            Some(collect_name),
            out.cast(),
        )
    })?;
    names
        .into_iter()
        .map(|name| {
            let object = open_object(&group, &name)?;
            let kind = kind_of(&object)?;
            let group = (kind == Kind::Group)
                .then(|| identity(&object))
                .transpose()?;
            object.close()?;
            Ok(Member { name, kind, group })
        })
        .collect()
}

/// What the open object `object` is.
fn kind_of(object: &Id) -> Result<Kind> {
    let o = object.raw();
    // SAFETY: `o` is an open object.
    let kind = match h5call!(unsafe { H5Iget_type(o) }, fails if |t| t == H5I_type_t::H5I_BADID)? {
        H5I_type_t::H5I_GROUP => Kind::Group,
        H5I_type_t::H5I_DATASET => Kind::Dataset,
        _ => Kind::Other,
    };
    Ok(kind)
}

/// Where a path leads: through groups to its end, or to the first of its prefixes (as
/// written: `a`, `a/b`, ... the path itself) that does not exist or is not a group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Along {
    Groups,
    Missing(String),
    Stops(String, Kind),
}

/// Where `path` leads from `loc` (`independent`: this rank alone asks; else collective).
pub fn walk(loc: &Id, path: &str, independent: bool) -> Result<Along> {
    let lists = independent.then(plist::independent_read).transpose()?;
    let lapl = lists.as_ref().map_or(H5P_DEFAULT, |(_, lapl)| lapl.raw());
    let ends = path.match_indices('/').map(|(i, _)| i).chain([path.len()]);
    for end in ends.filter(|&end| !path[..end].trim_matches('/').is_empty()) {
        let prefix = &path[..end];
        let (l, c_prefix) = (loc.raw(), c_string(prefix)?);
        // SAFETY: `l` is an open file or object, the prefix is NUL-terminated, `lapl` a
        // link access list.
        if h5call!(unsafe { H5Lexists(l, c_prefix.as_ptr(), lapl) })? <= 0 {
            return Ok(Along::Missing(prefix.to_string()));
        }
        // SAFETY: as above.
        let object = h5call!(unsafe { H5Oopen(l, c_prefix.as_ptr(), lapl) }, closed by H5Oclose)?;
        let kind = kind_of(&object)?;
        object.close()?;
        if kind != Kind::Group {
            return Ok(Along::Stops(prefix.to_string(), kind));
        }
    }
    Ok(Along::Groups)
}

/// The object at `path` from `loc` (`"."`: `loc` itself), open.
pub fn open_object(loc: &Id, path: &str) -> Result<Id> {
    let c_path = c_string(path)?;
    let l = loc.raw();
    // SAFETY: `l` is an open file or object and the path is NUL-terminated.
    h5call!(unsafe { H5Oopen(l, c_path.as_ptr(), H5P_DEFAULT) }, closed by H5Oclose)
}

/// What a group holds, all the way down: its groups and its datasets.
#[derive(Default)]
pub struct Contents {
    /// Depth first, by name (parents before what they hold).
    pub groups: Vec<String>,
    /// Depth first, by name.
    pub datasets: Vec<String>,
}

/// Every group and dataset under the group `group`, in one walk, but neither the group
/// `skip` (dah5's block tables) nor anything under it.
pub fn contents(file: &Id, group: &str, skip: &str) -> Result<Contents> {
    let mut found = Contents::default();
    walk_from(file, group, skip, &mut |path, kind| match kind {
        Kind::Group => found.groups.push(path.to_string()),
        Kind::Dataset => found.datasets.push(path.to_string()),
        Kind::Other => {}
    })?;
    Ok(found)
}

/// [`walk_tree`] from the group `group`, which the walk is inside of.
fn walk_from(file: &Id, group: &str, skip: &str, visit: &mut impl FnMut(&str, Kind)) -> Result<()> {
    let start = open_object(file, group)?;
    let mut above = vec![identity(&start)?];
    start.close()?;
    walk_tree(file, group, skip, &mut above, visit)
}

/// Call `visit` with every link under `group` (its path, what it leads to), depth first, by
/// name, skipping the group `skip` and a link back to a group it is inside of (`above`
/// holds those: a hard link can make a circle, which a walk would follow for ever).
fn walk_tree(
    file: &Id,
    group: &str,
    skip: &str,
    above: &mut Vec<ObjectId>,
    visit: &mut impl FnMut(&str, Kind),
) -> Result<()> {
    for member in members(file, group)? {
        let path = format!("{}/{}", group.trim_end_matches('/'), member.name);
        if path == skip || member.group.is_some_and(|g| above.contains(&g)) {
            continue;
        }
        visit(&path, member.kind);
        if let Some(inner) = member.group {
            above.push(inner);
            walk_tree(file, &path, skip, above, visit)?;
            above.pop();
        }
    }
    Ok(())
}

/// H5Literate's callback: push the link's name onto the Vec<String> in `names`.
extern "C" fn collect_name(
    _group: hid_t,
    name: *const c_char,
    _info: *const H5L_info_t,
    names: *mut c_void,
) -> herr_t {
    // SAFETY: HDF5 passes a NUL-terminated name and our `names` pointer (see `members`).
    let (name, names) = unsafe { (CStr::from_ptr(name), &mut *names.cast::<Vec<String>>()) };
    names.push(name.to_string_lossy().into_owned());
    0
}

/// Whether the link `path` exists (its parent group must).
pub fn exists(loc: &Id, path: &str) -> Result<bool> {
    let c_path = c_string(path)?;
    let l = loc.raw();
    // SAFETY: `l` is an open file or object and the path is NUL-terminated.
    Ok(h5call!(unsafe { H5Lexists(l, c_path.as_ptr(), H5P_DEFAULT) })? > 0)
}
