//! The HDF5 boundary. Every HDF5 call in the library goes through [`h5call!`] (and so
//! [`call`]), which holds dah5's global HDF5 lock (this HDF5 is not thread-safe), makes
//! sure the library is initialized with automatic error printing off, and turns a failure
//! into an [`Error`] carrying the HDF5 error stack, captured before the lock is released and
//! classified by its major and minor error codes.

/// Call an HDF5 function, named in the error after the function called (after hdf5-rust's
/// `h5call!`). The caller writes the `unsafe` block, with its `// SAFETY:` line above:
///
/// - `h5call!(unsafe { H5Fflush(id, scope) })`: fails when the value is negative;
/// - `h5call!(unsafe { H5Tget_size(t) }, fails if |size| size == 0)`: for a function
///   whose failure value is another;
/// - `h5call!(unsafe { H5Dopen2(file, name, dapl) }, closed by H5Dclose)`: an owned [`Id`].
///
/// [`Id`]: id::Id
macro_rules! h5call {
    // clippy does not look into unsafe blocks inside macros: tests/layers.rs checks that
    // every `h5call!(unsafe` has its SAFETY comment above it.
    (@name { $function:ident $($call:tt)* }) => {
        stringify!($function)
    };
    ($unsafe:tt $body:tt) => {
        $crate::h5::call::call(h5call!(@name $body), || $unsafe $body)
    };
    ($unsafe:tt $body:tt, fails if $failed:expr) => {
        $crate::h5::call::call_checked(h5call!(@name $body), || {
            let value = $unsafe $body;
            let failed = ($failed)(value);
            (value, failed)
        })
    };
    ($unsafe:tt $body:tt, closed by $closer:ident) => {
        $crate::h5::id::Id::create(
            h5call!(@name $body),
            const { &$crate::h5::id::Closer { close: $closer, name: stringify!($closer) } },
            || $unsafe $body,
        )
    };
}

pub mod attr;
pub mod call;
pub mod dataset;
mod error_stack;
pub mod file;
pub mod group;
pub mod id;
pub mod library;
pub mod name;
pub mod plist;
pub mod scale;
pub mod space;
pub mod types;

pub(crate) use error_stack::STACK_ENV;

pub use call::{Section, enter_section, try_enter_section};
pub use library::{closes_files_at_exit, open_library};

use hdf5_sys::h5::H5get_libversion;

use crate::error::Result;

/// The HDF5 library version this process runs with, as "major.minor.release".
pub fn library_version() -> Result<String> {
    let (mut major, mut minor, mut release) = (0, 0, 0);
    // SAFETY: the three out-pointers are valid locals.
    h5call!(unsafe { H5get_libversion(&mut major, &mut minor, &mut release) })?;
    Ok(format!("{major}.{minor}.{release}"))
}
