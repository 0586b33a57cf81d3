//! The option structs of the C ABI, and how they evolve (after libgit2's
//! `git_checkout_options_init`). A new version only appends fields, so version N is a
//! prefix of the newest struct. The caller says which version its struct is:
//!
//! - `dah5_*_options_init(opts, version)` writes the defaults of that version and only
//!   that version's bytes, so a newer library never writes past an older caller's struct;
//! - reading, the library takes only the bytes of the struct's `version`, and the fields
//!   that version lacks keep their defaults.
//!
//! Adding a field: append it to the struct, set its default in `Default`, bump the
//! `DAH5_*_OPTIONS_VERSION` constant and append the new size to `SIZES`.

use std::ffi::c_char;
use std::mem::{offset_of, size_of};

use crate::core::dataset::DatasetOptions;
use crate::core::file::{FileOptions, Tuning, checks_from_env, file_sync_from_env, parse_hints};
use crate::core::layout::LayoutRequest;
use crate::core::shape::check_ndims;
use crate::error::{Error, Result};
use crate::ffi::consts::{
    DAH5_ATOMIC, DAH5_FILL_ZEROS, DAH5_NO_CHECKS, DAH5_NO_FILE_LOCKING, DAH5_SHUFFLE, check_known,
};
use crate::ffi::{boundary, from_c};

/// The newest `version` of `dah5_file_options`; this library reads every version from 1.
pub const DAH5_FILE_OPTIONS_VERSION: u32 = 2;
/// The newest `version` of `dah5_dataset_options`; this library reads every version from 1.
pub const DAH5_DATASET_OPTIONS_VERSION: u32 = 2;

/// Options for `dah5_file_create_with` / `dah5_file_open_with`. Fill it with
/// `dah5_file_options_init(&options, DAH5_FILE_OPTIONS_VERSION)`, then change fields. Every
/// rank passes the same values. Version 1 ended after `alignment` (`flags` was reserved).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dah5_file_options {
    /// The version the program was compiled with, as `dah5_file_options_init` sets it.
    pub version: u32,
    /// `DAH5_ATOMIC`, `DAH5_NO_FILE_LOCKING`, `DAH5_NO_CHECKS`, or 0.
    pub flags: u32,
    /// Objects of at least this many bytes are aligned (`H5Pset_alignment`); default 1 MiB.
    pub alignment_threshold: u64,
    /// Their file address is a multiple of this. 0 (the default): dah5 chooses it when the
    /// file is created or opened, from the file system that holds it: the stripe size on
    /// Lustre, the block size on GPFS, 1 MiB elsewhere. At most 4 GiB.
    pub alignment: u64,
    /// `H5Pset_meta_block_size`: small metadata is packed into blocks this big; 0 keeps
    /// HDF5's default (2 KiB).
    pub meta_block_size: u64,
    /// Initial size of HDF5's metadata cache (and at least its maximum); 0 keeps HDF5's
    /// default.
    pub metadata_cache_bytes: u64,
    /// NULL, or MPI-IO hints for `MPI_File_open` as `"key=value;key=value"`, e.g.
    /// `"romio_cb_write=enable;cb_buffer_size=16777216;striping_factor=8"`.
    pub mpi_hints: *const c_char,
}

/// Options for `dah5_dataset_create` and `dah5_darray_write`. Fill it with
/// `dah5_dataset_options_init(&options, DAH5_DATASET_OPTIONS_VERSION)`, then change fields.
/// Chunk and max dims are in the file handle's order. Version 1 ended after `flags`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dah5_dataset_options {
    /// The version the program was compiled with, as `dah5_dataset_options_init` sets it.
    pub version: u32,
    /// `DAH5_FILL_ZEROS`, `DAH5_SHUFFLE`, or 0.
    pub flags: u32,
    /// deflate (gzip) level 1 .. 9, or 0 for none. Compressed datasets are chunked, and
    /// written only collectively (parallel HDF5's rule).
    pub deflate_level: u32,
    /// 0: the library chooses (contiguous, unless compressed or extendible); otherwise the
    /// dataset's ndims, with the extents in `chunk`.
    pub chunk_ndims: u32,
    /// 0: dims fixed; otherwise the dataset's ndims, with the limits in `max_dims`.
    pub max_ndims: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
    /// Chunk extents (first `chunk_ndims` entries).
    pub chunk: [u64; 32],
    /// Maximum extents (first `max_ndims` entries): at least the dims, or `DAH5_UNLIMITED`.
    /// Extendible datasets are chunked; grow them with `dah5_dataset_extend`.
    pub max_dims: [u64; 32],
}

impl Default for dah5_file_options {
    fn default() -> Self {
        let tuning = Tuning::default();
        dah5_file_options {
            version: DAH5_FILE_OPTIONS_VERSION,
            flags: 0,
            alignment_threshold: tuning.alignment_threshold,
            alignment: tuning.alignment,
            meta_block_size: tuning.meta_block_size,
            metadata_cache_bytes: tuning.metadata_cache_bytes,
            mpi_hints: std::ptr::null(),
        }
    }
}

impl Default for dah5_dataset_options {
    fn default() -> Self {
        dah5_dataset_options {
            version: DAH5_DATASET_OPTIONS_VERSION,
            flags: 0,
            deflate_level: 0,
            chunk_ndims: 0,
            max_ndims: 0,
            reserved: 0,
            chunk: [0; 32],
            max_dims: [0; 32],
        }
    }
}

/// An options struct that grows by appending fields.
trait Versioned: Copy + Default {
    /// The struct's C name, for messages.
    const NAME: &'static str;
    /// The struct's size at versions 1, 2, ...; the last is the newest version's.
    const SIZES: &'static [usize];
    fn set_version(&mut self, version: u32);
}

impl Versioned for dah5_file_options {
    const NAME: &'static str = "dah5_file_options";
    const SIZES: &'static [usize] = &[
        offset_of!(dah5_file_options, meta_block_size),
        size_of::<dah5_file_options>(),
    ];
    fn set_version(&mut self, version: u32) {
        self.version = version;
    }
}

impl Versioned for dah5_dataset_options {
    const NAME: &'static str = "dah5_dataset_options";
    const SIZES: &'static [usize] = &[
        offset_of!(dah5_dataset_options, deflate_level),
        size_of::<dah5_dataset_options>(),
    ];
    fn set_version(&mut self, version: u32) {
        self.version = version;
    }
}

const _: () = assert!(dah5_file_options::SIZES.len() == DAH5_FILE_OPTIONS_VERSION as usize);
const _: () = assert!(dah5_dataset_options::SIZES.len() == DAH5_DATASET_OPTIONS_VERSION as usize);

/// The size of `T` at `version`, or an error naming the versions this library knows.
fn size_at<T: Versioned>(version: u32, parameter: &str) -> Result<usize> {
    let known = T::SIZES.len();
    version
        .checked_sub(1)
        .and_then(|i| T::SIZES.get(i as usize))
        .copied()
        .ok_or_else(|| {
            Error::invalid(format!(
                "{parameter} = {version}: this library knows versions 1 to {known} of {} (a \
                 program compiled against a newer dah5.h needs a newer libdah5); fill the \
                 struct with {}_init",
                T::NAME,
                T::NAME
            ))
        })
}

/// The options at `p`: NULL means the defaults; otherwise the bytes of the struct's
/// version, and the defaults for the fields it does not have.
///
/// # Safety
/// `p` is NULL or points to a `T` of the version it states (at least that many bytes).
unsafe fn read<T: Versioned>(p: *const T) -> Result<T> {
    if p.is_null() {
        return Ok(T::default());
    }
    // SAFETY: every version of the struct starts with its u32 version.
    let version = unsafe { p.cast::<u32>().read_unaligned() };
    let size = size_at::<T>(version, "options->version")?;
    let mut options = T::default();
    // SAFETY: the caller's struct has `size` bytes (its version says so), and `options`
    // has size_of::<T>() >= size; the prefix of a valid T is a valid prefix of T's fields.
    unsafe { std::ptr::copy_nonoverlapping(p.cast::<u8>(), (&raw mut options).cast::<u8>(), size) };
    Ok(options)
}

/// Write the defaults of `version` into `out`: only that version's bytes.
///
/// # Safety
/// `out` is NULL or points to at least the size of a `T` of `version`, writable.
unsafe fn init<T: Versioned>(out: *mut T, version: u32) -> Result<()> {
    from_c::out(out, "options_out")?;
    let size = size_at::<T>(version, "version")?;
    let mut defaults = T::default();
    defaults.set_version(version);
    // SAFETY: `out` has room for `size` bytes by this function's contract; `defaults` has
    // size_of::<T>() >= size.
    unsafe {
        std::ptr::copy_nonoverlapping((&raw const defaults).cast::<u8>(), out.cast::<u8>(), size)
    };
    Ok(())
}

/// Fill `options_out` with the defaults of `version` of `dah5_file_options` (1 MiB
/// alignment threshold, the alignment chosen from the file system, no hints): pass
/// `DAH5_FILE_OPTIONS_VERSION`. Only the fields of that version are written, so a program
/// built against an older dah5.h keeps working with a newer library.
///
/// Local.
///
/// @return `DAH5_OK`; `DAH5_ERR_NULL_ARGUMENT`; `DAH5_ERR_INVALID_ARGUMENT` for a version
///         this library does not know (0, or newer than it).
///
/// # Safety
/// `options_out` is NULL or points to a writable `dah5_file_options` of `version`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_options_init(
    options_out: *mut dah5_file_options,
    version: u32,
) -> i32 {
    // SAFETY: by this function's contract.
    boundary("dah5_file_options_init", || unsafe {
        init(options_out, version)
    })
}

/// Fill `options_out` with the defaults of `version` of `dah5_dataset_options` (no fill,
/// contiguous, fixed dims): pass `DAH5_DATASET_OPTIONS_VERSION`. As
/// `dah5_file_options_init`.
///
/// Local.
///
/// # Safety
/// `options_out` is NULL or points to a writable `dah5_dataset_options` of `version`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_options_init(
    options_out: *mut dah5_dataset_options,
    version: u32,
) -> i32 {
    // SAFETY: by this function's contract.
    boundary("dah5_dataset_options_init", || unsafe {
        init(options_out, version)
    })
}

/// The newest `dah5_file_options` defaults: `dah5_file_options_init(options_out,
/// DAH5_FILE_OPTIONS_VERSION)` of the library, which writes its newest struct (kept for
/// the programs that call it; new code calls `dah5_file_options_init`).
///
/// Local.
///
/// # Safety
/// `options_out` is NULL or points to a writable `dah5_file_options` of this library's
/// version.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_file_options_default(options_out: *mut dah5_file_options) -> i32 {
    // SAFETY: by this function's contract.
    unsafe { dah5_file_options_init(options_out, DAH5_FILE_OPTIONS_VERSION) }
}

/// The newest `dah5_dataset_options` defaults, as `dah5_file_options_default` (new code
/// calls `dah5_dataset_options_init`).
///
/// Local.
///
/// # Safety
/// `options_out` is NULL or points to a writable `dah5_dataset_options` of this library's
/// version.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dah5_dataset_options_default(
    options_out: *mut dah5_dataset_options,
) -> i32 {
    // SAFETY: by this function's contract.
    unsafe { dah5_dataset_options_init(options_out, DAH5_DATASET_OPTIONS_VERSION) }
}

/// What the `dah5_file_options` at `options` (NULL: the defaults) ask for:
///
/// # Safety
/// `options` is NULL or points to a `dah5_file_options` of its version, whose
/// `mpi_hints` is NULL or NUL-terminated.
pub unsafe fn file_options(options: *const dah5_file_options) -> Result<FileOptions> {
    // SAFETY: by this function's contract.
    let options = unsafe { read(options) }?;
    check_known(
        options.flags,
        DAH5_ATOMIC | DAH5_NO_FILE_LOCKING | DAH5_NO_CHECKS,
        "options->flags",
    )?;
    let hints = if options.mpi_hints.is_null() {
        Vec::new()
    } else {
        // SAFETY: non-NULL and NUL-terminated by this function's contract.
        parse_hints(unsafe { from_c::string(options.mpi_hints, "options->mpi_hints") }?)?
    };
    let tuning = Tuning {
        alignment_threshold: options.alignment_threshold,
        alignment: options.alignment,
        meta_block_size: options.meta_block_size,
        metadata_cache_bytes: options.metadata_cache_bytes,
        file_locking: options.flags & DAH5_NO_FILE_LOCKING == 0,
    };
    Ok(FileOptions {
        tuning,
        hints,
        atomic: options.flags & DAH5_ATOMIC != 0,
        checks: options.flags & DAH5_NO_CHECKS == 0 && checks_from_env(),
        file_sync: file_sync_from_env(),
    })
}

/// The first `n` entries of an options array, if `n` says there are any.
fn option_dims(values: &[u64; 32], n: u32, what: &str) -> Result<Option<Vec<u64>>> {
    if n == 0 {
        return Ok(None);
    }
    check_ndims(n as usize).map_err(|e| e.context(format_args!("options->{what}")))?;
    Ok(Some(values[..n as usize].to_vec()))
}

/// What the `dah5_dataset_options` at `options` (NULL: the defaults) ask for.
///
/// # Safety
/// `options` is NULL or points to a `dah5_dataset_options` of its version.
pub unsafe fn dataset_options(options: *const dah5_dataset_options) -> Result<DatasetOptions> {
    // NULL, the common case, without filling and checking a struct of defaults (a test
    // below checks they are the same).
    if options.is_null() {
        return Ok(DatasetOptions::default());
    }
    // SAFETY: by this function's contract.
    let options = unsafe { read(options) }?;
    check_known(
        options.flags,
        DAH5_FILL_ZEROS | DAH5_SHUFFLE,
        "options->flags",
    )?;
    if options.reserved != 0 {
        return Err(Error::invalid("options->reserved must be 0"));
    }
    Ok(DatasetOptions {
        fill_with_zeros: options.flags & DAH5_FILL_ZEROS != 0,
        layout: LayoutRequest {
            chunk: option_dims(&options.chunk, options.chunk_ndims, "chunk_ndims")?,
            max_dims: option_dims(&options.max_dims, options.max_ndims, "max_ndims")?,
            deflate_level: options.deflate_level,
            shuffle: options.flags & DAH5_SHUFFLE != 0,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Version 1 of `dah5_file_options`, as dah5.h 0.1 declared it.
    #[repr(C)]
    struct FileOptionsV1 {
        version: u32,
        reserved: u32,
        alignment_threshold: u64,
        alignment: u64,
    }

    #[test]
    fn null_dataset_options_are_the_default_struct() {
        let defaults = dah5_dataset_options::default();
        // SAFETY: NULL, and a complete struct of the current version.
        let (null, read) = unsafe {
            (
                dataset_options(std::ptr::null()).unwrap(),
                dataset_options(&defaults).unwrap(),
            )
        };
        assert_eq!(null, read);
    }

    #[test]
    fn a_version_1_struct_is_read_with_defaults_for_the_newer_fields() {
        let v1 = FileOptionsV1 {
            version: 1,
            reserved: 0,
            alignment_threshold: 4096,
            alignment: 512,
        };
        // SAFETY: a complete version 1 struct.
        let options = unsafe { file_options((&raw const v1).cast::<dah5_file_options>()) }.unwrap();
        let tuning = &options.tuning;
        assert_eq!((tuning.alignment_threshold, tuning.alignment), (4096, 512));
        assert_eq!(tuning.meta_block_size, Tuning::default().meta_block_size);
        assert!(options.hints.is_empty() && !options.atomic && tuning.file_locking);
        assert_eq!(size_of::<FileOptionsV1>(), dah5_file_options::SIZES[0]);
    }

    #[test]
    fn init_writes_only_the_bytes_of_the_version_asked_for() {
        let mut buffer = [0xabu8; size_of::<dah5_file_options>()];
        let out = buffer.as_mut_ptr().cast::<dah5_file_options>();
        // SAFETY: the buffer is as large as the newest struct.
        unsafe { init(out, 1) }.unwrap();
        let v1 = dah5_file_options::SIZES[0];
        assert!(
            buffer[v1..].iter().all(|&b| b == 0xab),
            "wrote past version 1"
        );
        assert_eq!(u32::from_ne_bytes(buffer[..4].try_into().unwrap()), 1);
        for version in [0, DAH5_FILE_OPTIONS_VERSION + 1] {
            // SAFETY: as above.
            let e = unsafe { init(out, version) }.unwrap_err();
            assert!(e.message.contains("versions 1 to 2"), "{}", e.message);
        }
    }
}
