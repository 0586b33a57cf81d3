//! Another MPI library in the process, in its two forms:
//!
//! - **Linked**: the program was built with another MPI (`mpicc.mpich`) and linked to a dah5
//!   built with Open MPI, or the reverse. The loader then binds every MPI call of dah5 and
//!   HDF5 to the program's MPI, while dah5's compiled-in handles (`MPI_COMM_WORLD`, ...) are
//!   those of the other ABI: the first call into HDF5 or MPI would crash. [`check_abi`] asks
//!   the MPI that calls actually reach what it is, before anything else is called.
//! - **Loaded apart** (`dlopen(RTLD_LOCAL)`: Julia with MPICH_jll, a pip wheel's MPI in
//!   Python): dah5's calls reach its own MPI, which says "not initialized" although the
//!   program did initialize an MPI. [`initialized_other_mpi`] finds that library and asks it
//!   what it is.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::error::{Error, ErrorKind, Result};

/// The two MPI ABIs in use: MPICH's (integer handles: MPICH, Intel MPI, Cray MPICH,
/// MVAPICH, Julia's MPICH_jll) and Open MPI's (pointer handles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Abi {
    Mpich,
    OpenMpi,
}

impl Abi {
    /// The ABI of the `mpi.h` dah5 was compiled with, seen in the size of its handles.
    fn built() -> Abi {
        if std::mem::size_of::<mpi_sys::MPI_Comm>() == std::mem::size_of::<c_int>() {
            Abi::Mpich
        } else {
            Abi::OpenMpi
        }
    }

    /// The ABI of a running MPI library, from its `MPI_Get_library_version` text; None for
    /// an MPI of neither family (then nothing is refused).
    fn of_version(version: &str) -> Option<Abi> {
        if version.contains("Open MPI") {
            Some(Abi::OpenMpi)
        } else if ["MPICH", "Intel(R) MPI", "MVAPICH"]
            .iter()
            .any(|family| version.contains(family))
        {
            Some(Abi::Mpich)
        } else {
            None
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Abi::Mpich => "MPICH's ABI (MPICH, Intel MPI, Cray MPICH, MVAPICH, MPICH_jll)",
            Abi::OpenMpi => "Open MPI's ABI",
        }
    }
}

/// Fail with `AbiMismatch` when this process's MPI calls reach an MPI library of another
/// ABI than the one dah5 was built for. Touches nothing but `MPI_Get_library_version`
/// (legal before `MPI_Init`, and the same C signature in every MPI); decided once.
pub fn check_abi() -> Result<()> {
    static VERDICT: OnceLock<Result<()>> = OnceLock::new();
    VERDICT.get_or_init(abi_verdict).clone()
}

fn abi_verdict() -> Result<()> {
    let called = library_of(mpi_sys::MPI_Get_library_version as *const c_void)
        .unwrap_or_else(|| "?".to_string());
    // SAFETY: the function pointer is the one the loader bound dah5's calls to.
    let version = first_line(&unsafe { version_of(mpi_sys::MPI_Get_library_version) });
    let built = Abi::built();
    match Abi::of_version(&version) {
        Some(abi) if abi != built => {
            let ours: Vec<String> = loaded_objects()
                .into_iter()
                .filter(|path| is_mpi_library(path) && *path != called)
                .collect();
            let ours = if ours.is_empty() {
                String::new()
            } else {
                format!(", linked to {}", ours.join(" and "))
            };
            Err(Error::new(
                ErrorKind::AbiMismatch,
                format!(
                    "MPI library mismatch: dah5 was built for {}{ours}, but this program's \
                     MPI calls go to {called} ({version}), which has {}. Nothing was called: \
                     build dah5 with the program's MPI (make MPI=mpich, or MPICC and \
                     HDF5_DIR of that MPI on a cluster), or the program with dah5's; from \
                     Julia, point MPI.jl at dah5's MPI (MPIPreferences.use_system_binary())",
                    built.describe(),
                    abi.describe()
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// `"path (version)"` of an initialized MPI library loaded in this process other than the
/// one dah5 uses, if there is one.
pub fn initialized_other_mpi() -> Option<String> {
    let ours = library_of(mpi_sys::MPI_Initialized as *const c_void);
    loaded_objects()
        .into_iter()
        .filter(|path| is_mpi_library(path) && Some(path) != ours.as_ref())
        .find_map(|path| describe_if_initialized(&path))
}

/// The path of dah5's own MPI library.
pub fn our_library() -> String {
    library_of(mpi_sys::MPI_Initialized as *const c_void).unwrap_or_else(|| "?".to_string())
}

fn is_mpi_library(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.starts_with("libmpi.so") || file.starts_with("libmpich.so") || file.starts_with("libmpi_")
}

/// The shared object that defines `symbol`.
fn library_of(symbol: *const c_void) -> Option<String> {
    // SAFETY: Dl_info is plain data that dladdr fills.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: any address may be asked about; `info` is a live out-parameter.
    if unsafe { libc::dladdr(symbol, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned a NUL-terminated name owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) }.to_string_lossy();
    std::fs::canonicalize(&*name)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// The (canonical) paths of every shared object loaded in the process.
fn loaded_objects() -> Vec<String> {
    unsafe extern "C" fn each(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid info; `data` is the Vec passed below.
        let (name, paths) = unsafe { ((*info).dlpi_name, &mut *(data as *mut Vec<String>)) };
        if !name.is_null() {
            // SAFETY: a NUL-terminated name owned by the loader.
            let name = unsafe { CStr::from_ptr(name) }.to_string_lossy();
            if let Ok(path) = std::fs::canonicalize(&*name) {
                paths.push(path.to_string_lossy().into_owned());
            }
        }
        0
    }
    let mut paths: Vec<String> = Vec::new();
    // SAFETY: `each` only reads the info and appends to `paths`, which outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut paths as *mut Vec<String>).cast()) };
    paths
}

/// Ask the library at `path` (already loaded) whether it is initialized, and its version.
fn describe_if_initialized(path: &str) -> Option<String> {
    let c_path = CString::new(path).ok()?;
    // SAFETY: RTLD_NOLOAD only finds a library that is already loaded; nothing is run.
    let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if handle.is_null() {
        return None;
    }
    type Initialized = unsafe extern "C" fn(*mut c_int) -> c_int;
    // SAFETY: a live handle and NUL-terminated symbol names.
    let (initialized, version) = unsafe {
        (
            libc::dlsym(handle, c"MPI_Initialized".as_ptr()),
            libc::dlsym(handle, c"MPI_Get_library_version".as_ptr()),
        )
    };
    let mut flag: c_int = 0;
    let found = !initialized.is_null() && {
        // SAFETY: MPI_Initialized has this signature in every MPI and may be called any time.
        let initialized: Initialized = unsafe { std::mem::transmute(initialized) };
        // SAFETY: `flag` is a live out-parameter.
        unsafe { initialized(&mut flag) };
        flag != 0
    };
    let description = found.then(|| {
        let version = if version.is_null() {
            String::new()
        } else {
            // SAFETY: MPI_Get_library_version has this signature in every MPI.
            let version: Version = unsafe { std::mem::transmute(version) };
            // SAFETY: as above.
            unsafe { version_of(version) }
        };
        format!("{path} ({})", first_line(&version))
    });
    // SAFETY: the handle from dlopen above, released once.
    unsafe { libc::dlclose(handle) };
    description
}

pub(crate) type Version = unsafe extern "C" fn(*mut c_char, *mut c_int) -> c_int;

/// The text `version` (an `MPI_Get_library_version`) writes.
///
/// # Safety
/// `version` has the C signature of `MPI_Get_library_version`.
pub(crate) unsafe fn version_of(version: Version) -> String {
    // Larger than MPI_MAX_LIBRARY_VERSION_STRING of every MPI (Open MPI 256, MPICH 8192):
    // the library called may not be the one whose mpi.h dah5 was compiled with.
    let mut text = vec![0 as c_char; 16384];
    let mut len: c_int = 0;
    // SAFETY: live buffers, larger than any MPI writes.
    unsafe { version(text.as_mut_ptr(), &mut len) };
    // SAFETY: the library wrote a NUL-terminated string (or nothing: all zeros).
    unsafe { CStr::from_ptr(text.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// The name and version from a version text, white space folded: its first line, up to a
/// comma (MPICH's has tabs; Open MPI's goes on with package details).
pub(crate) fn first_line(version: &str) -> String {
    let first = version.split([',', '\n']).next().unwrap_or("");
    first.split_whitespace().collect::<Vec<_>>().join(" ")
}
