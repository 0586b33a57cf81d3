//! File names as MPI-IO takes them and as the operating system takes them.
//!
//! ROMIO (the MPI-IO of MPICH and its family, and the `romio` component of Open MPI) lets a
//! file name start with the type of its file system, `nfs:/scratch/out.h5`, to choose the
//! driver for it. dah5 hands the name as given to HDF5's MPI-IO driver, and takes the
//! prefix off wherever it calls the operating system itself or opens a file with HDF5's
//! serial driver: free space, reservation, replacing a file, subfiles, `dah5 info`, `merge`.

/// The file-system types ROMIO takes as a prefix (MPICH 4's ADIO table; PnetCDF strips
/// the same ones). A name with another text before a colon is an ordinary name.
const ROMIO_FILE_SYSTEMS: [&str; 11] = [
    "ufs", "nfs", "xfs", "pvfs2", "gpfs", "panfs", "lustre", "daos", "testfs", "ime", "quobyte",
];

/// The ROMIO prefix of `name` with its colon (`"nfs:"`), if it has one. ROMIO takes the
/// type in lower or upper case (`nfs:`, `NFS:`), nothing in between.
pub fn romio_prefix(name: &str) -> Option<&str> {
    let (fs, _) = name.split_once(':')?;
    let known = ROMIO_FILE_SYSTEMS.iter().any(|&known| {
        fs == known
            || (fs.eq_ignore_ascii_case(known) && !fs.bytes().any(|b| b.is_ascii_lowercase()))
    });
    known.then(|| &name[..=fs.len()])
}

/// `name` as the operating system takes it: without a ROMIO prefix.
pub fn os_path(name: &str) -> &str {
    romio_prefix(name).map_or(name, |prefix| &name[prefix.len()..])
}

/// The file `name` (as given to dah5) when it exists, else the directory it would be made
/// in: the place to ask about the file system that holds, or will hold, the file.
pub fn file_or_directory(name: &str) -> &std::path::Path {
    let path = std::path::Path::new(os_path(name));
    if path.exists() {
        return path;
    }
    directory_of(name)
}

/// The directory the file `name` (as given to dah5) is in, or would be made in.
pub fn directory_of(name: &str) -> &std::path::Path {
    match std::path::Path::new(os_path(name)).parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => std::path::Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn romio_prefixes_come_off_for_the_operating_system() {
        for (name, prefix, path) in [
            ("nfs:/scratch/out.h5", Some("nfs:"), "/scratch/out.h5"),
            ("LUSTRE:/lus/out.h5", Some("LUSTRE:"), "/lus/out.h5"),
            ("ufs:out.h5", Some("ufs:"), "out.h5"),
            ("pvfs2:/p/x.h5", Some("pvfs2:"), "/p/x.h5"),
            ("/scratch/out.h5", None, "/scratch/out.h5"),
            // Not a file-system type: an ordinary name with a colon in it.
            ("run:3.h5", None, "run:3.h5"),
            ("Nfs:/x.h5", None, "Nfs:/x.h5"),
            ("dir/nfs:x.h5", None, "dir/nfs:x.h5"),
        ] {
            assert_eq!(romio_prefix(name), prefix, "{name}");
            assert_eq!(os_path(name), path, "{name}");
        }
    }
}
