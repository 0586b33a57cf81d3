//! Names of objects in a file: what dah5 takes as a dataset's name or an attribute's object,
//! and, when HDF5 could not make or find an object, what was wrong with the name, said
//! about the name (HDF5's own words are about its internals, "message type not found").

use crate::error::{Error, ErrorKind, Result};
use crate::h5;
use crate::h5::group::{Along, Kind};
use crate::h5::id::Id;

/// The group that holds every darray's table dataset (`core::block_table`): a name dah5
/// keeps for itself.
pub(crate) const TABLES_GROUP: &str = "/dah5_blocks";

/// `name`, a path from the file's root with or without its leading '/', as an absolute path.
pub fn absolute(name: &str) -> String {
    format!("/{}", name.trim_start_matches('/'))
}

/// What is wrong with the path `name`, if anything: a component that is empty (two '/' in
/// a row) or "." (HDF5 reads both as no step at all, so dah5 would know the object by
/// another name than HDF5 does).
fn path_fault(name: &str) -> Option<&'static str> {
    let inner = name.strip_prefix('/').unwrap_or(name);
    // One pass over the components, no allocation (every dataset create checks its name).
    let mut empty = false;
    for component in inner.split('/') {
        if component == "." {
            return Some("\".\" is not a name in HDF5 (it stands for the group it is in)");
        }
        empty |= component.is_empty();
    }
    empty.then_some("it has two '/' in a row (an empty component)")
}

/// A dataset's name: a path from the root group, with or without its leading '/'.
pub fn check_dataset(name: &str) -> Result<()> {
    check_path(name, "dataset")
}

/// The path of `what` (a dataset, a group): non-empty, not ending in '/', no component
/// HDF5 reads as another name.
fn check_path(name: &str, what: &str) -> Result<()> {
    if name.is_empty() || name.ends_with('/') {
        return Err(Error::invalid(format!(
            "name {name:?} is not a {what} name: it must be non-empty and not end in '/'"
        )));
    }
    match path_fault(name) {
        Some(fault) => Err(Error::invalid(format!(
            "name {name:?} is not a {what} name: {fault}"
        ))),
        None => Ok(()),
    }
}

/// The name of a new dataset: also not in (or at) the group dah5 keeps block tables in.
pub fn check_new_dataset(name: &str) -> Result<()> {
    check_dataset(name)?;
    check_not_reserved(name)
}

/// The path of a new group (`dah5_group_create`): as a new dataset's name.
pub fn check_new_group(path: &str) -> Result<()> {
    check_path(path, "group")?;
    check_not_reserved(path)
}

/// Refuse a name in (or at) the group dah5 keeps block tables in.
fn check_not_reserved(name: &str) -> Result<()> {
    let reserved = &TABLES_GROUP[1..];
    let inner = name.trim_start_matches('/');
    let under = |rest: &str| rest.is_empty() || rest.starts_with('/');
    if inner.strip_prefix(reserved).is_some_and(under) {
        return Err(Error::invalid(format!(
            "name {name:?} is dah5's own: the group {TABLES_GROUP} holds the block tables \
             that dah5_darray_write makes; choose another name"
        )));
    }
    Ok(())
}

/// The object an attribute is on: `"/"` (the root group) or a path to a group or dataset.
pub fn check_object(object: &str) -> Result<()> {
    if object == "/" {
        return Ok(());
    }
    let fault = if object.ends_with('/') {
        Some("it must not end in '/' (the root group is \"/\")")
    } else {
        path_fault(object)
    };
    match fault {
        Some(fault) => Err(Error::invalid(format!(
            "object name {object:?} is not a path to an object: {fault}"
        ))),
        None => Ok(()),
    }
}

/// What the caller wanted of the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// A new dataset.
    New,
    /// A new group.
    NewGroup,
    /// An existing dataset.
    Dataset,
    /// An existing group or dataset (an attribute's object).
    Object,
}

/// The error for `cause`, HDF5's failure to make or find `name` in `file`: what was wrong
/// with the name where a walk along it finds that (a prefix that is missing or not a
/// group, a new name that is taken); else `cause`. `independent`: this rank alone walks
/// (a local call); else every rank does, alike (HDF5 failed alike on every rank).
pub fn explain(file: &Id, name: &str, wanted: Wanted, independent: bool, cause: Error) -> Error {
    let Ok(along) = h5::group::walk(file, name, independent) else {
        return cause;
    };
    let within = |at: &str| at.len() < name.len();
    match (wanted, along) {
        (Wanted::New | Wanted::NewGroup, Along::Stops(at, kind)) if within(&at) => {
            Error::invalid(format!(
                "{} {name:?} cannot be made: {at:?} is {}, not a group, so nothing can be \
                 made under it",
                if wanted == Wanted::New {
                    "dataset"
                } else {
                    "group"
                },
                a(kind)
            ))
        }
        (_, Along::Stops(at, kind)) if within(&at) => Error::new(
            ErrorKind::NotFound,
            format!(
                "no object {name:?} in the file: {at:?} is {}, which holds no other objects",
                a(kind)
            ),
        ),
        (Wanted::New | Wanted::NewGroup, Along::Stops(_, kind)) => Error::new(
            ErrorKind::AlreadyExists,
            format!(
                "{} {name:?} exists already: choose another name{}",
                a(kind),
                if kind == Kind::Dataset && wanted == Wanted::New {
                    " (dah5_dataset_open opens it)"
                } else {
                    ""
                }
            ),
        ),
        (Wanted::New, Along::Groups) => Error::new(
            ErrorKind::AlreadyExists,
            format!("a group {name:?} exists already: choose another name for the dataset"),
        ),
        (Wanted::NewGroup, Along::Groups) => Error::new(
            ErrorKind::AlreadyExists,
            format!("a group {name:?} exists already"),
        ),
        (Wanted::Dataset, Along::Groups) => not_a_dataset(name, Kind::Group),
        (Wanted::Dataset, Along::Stops(_, Kind::Other)) => not_a_dataset(name, Kind::Other),
        (Wanted::Dataset | Wanted::Object, Along::Missing(at)) if at == name => Error::new(
            ErrorKind::NotFound,
            format!("no object {name:?} in the file (a name is a path from the file's root group)"),
        ),
        (Wanted::Dataset | Wanted::Object, Along::Missing(at)) => Error::new(
            ErrorKind::NotFound,
            format!("no object {name:?} in the file: {at:?} does not exist"),
        ),
        _ => cause,
    }
}

fn not_a_dataset(name: &str, kind: Kind) -> Error {
    Error::invalid(format!(
        "{name:?} is {}, not a dataset (a dataset's name is the path to it)",
        a(kind)
    ))
}

/// The kind with its article.
fn a(kind: Kind) -> &'static str {
    match kind {
        Kind::Group => "a group",
        Kind::Dataset => "a dataset",
        Kind::Other => "a named datatype",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_hdf5_would_read_as_other_names_are_refused() {
        for good in ["x", "/x", "g/h/x", "/g/h/x", "..", "a.b", "dah5_blocksx"] {
            assert!(check_new_dataset(good).is_ok(), "{good}");
        }
        for (bad, says) in [
            (".", "\".\" is not a name"),
            ("g/./x", "\".\" is not a name"),
            ("/.", "\".\" is not a name"),
            ("a//b", "two '/' in a row"),
            ("//a", "two '/' in a row"),
            ("", "non-empty"),
            ("g/", "not end in '/'"),
        ] {
            let e = check_dataset(bad).unwrap_err();
            assert!(e.message.contains(says), "{bad}: {}", e.message);
        }
        for reserved in [
            "dah5_blocks",
            "/dah5_blocks",
            "dah5_blocks/t",
            "/dah5_blocks/g/t",
        ] {
            for e in [
                check_new_dataset(reserved).unwrap_err(),
                check_new_group(reserved).unwrap_err(),
            ] {
                assert!(
                    e.message.contains("group /dah5_blocks holds"),
                    "{}",
                    e.message
                );
            }
            assert!(check_dataset(reserved).is_ok(), "opening a table is fine");
        }
        for (bad, says) in [
            ("/", "not a group name"),
            ("", "not a group name"),
            ("g/", "not end in '/'"),
            ("a//b", "two '/' in a row"),
            ("g/./h", "\".\" is not a name"),
        ] {
            let e = check_new_group(bad).unwrap_err();
            assert!(e.message.contains(says), "{bad}: {}", e.message);
        }
        assert!(check_new_group("/g/h").is_ok() && check_new_group("g").is_ok());
        assert!(check_object("/").is_ok() && check_object("g/x").is_ok());
        assert!(check_object(".").is_err() && check_object("g/").is_err());
    }
}
