//! Another MPI library in the process. A program can initialize an MPI other than the one
//! dah5 is linked to (Julia with MPICH_jll against an Open MPI build of dah5, a pip wheel's
//! MPI in Python); dah5's MPI then says "not initialized", which would be a misleading
//! message. This finds such a library and asks it what it is.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

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
    type Version = unsafe extern "C" fn(*mut c_char, *mut c_int) -> c_int;
    // SAFETY: a live handle and NUL-terminated symbol names.
    let (initialized, version) = unsafe {
        (
            libc::dlsym(handle, c"MPI_Initialized".as_ptr()),
            libc::dlsym(handle, c"MPI_Get_library_version".as_ptr()),
        )
    };
    let mut flag: c_int = 0;
    let mut text = vec![0 as c_char; 8192];
    let mut len: c_int = 0;
    let found = !initialized.is_null() && {
        // SAFETY: MPI_Initialized has this signature in every MPI and may be called any time.
        let initialized: Initialized = unsafe { std::mem::transmute(initialized) };
        // SAFETY: `flag` is a live out-parameter.
        unsafe { initialized(&mut flag) };
        flag != 0
    };
    let description = found.then(|| {
        if !version.is_null() {
            // SAFETY: MPI_Get_library_version has this signature; the buffer is larger
            // than MPI_MAX_LIBRARY_VERSION_STRING in MPICH and Open MPI.
            let version: Version = unsafe { std::mem::transmute(version) };
            // SAFETY: live buffers.
            unsafe { version(text.as_mut_ptr(), &mut len) };
        }
        // SAFETY: the library wrote a NUL-terminated string (or nothing: all zeros).
        let version = unsafe { CStr::from_ptr(text.as_ptr()) }.to_string_lossy();
        let first_line = version.lines().next().unwrap_or("");
        let version = first_line.split_whitespace().collect::<Vec<_>>().join(" ");
        format!("{path} ({version})")
    });
    // SAFETY: the handle from dlopen above, released once.
    unsafe { libc::dlclose(handle) };
    description
}
