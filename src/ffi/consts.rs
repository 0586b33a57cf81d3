//! Flags, dtype codes and version numbers of the C ABI, and their translation into core
//! types.

use crate::core::file::Access;
use crate::core::layout::UNLIMITED;
use crate::core::shape::Order;
use crate::dtype::Dtype;
use crate::error::{Error, Result};

const _: () = assert!(DAH5_UNLIMITED == UNLIMITED);

/// Major version of dah5 (the ABI changes incompatibly only with it).
pub const DAH5_VERSION_MAJOR: u32 = 0;
/// Minor version of dah5.
pub const DAH5_VERSION_MINOR: u32 = 1;
/// Patch version of dah5.
pub const DAH5_VERSION_PATCH: u32 = 0;
/// `major * 10000 + minor * 100 + patch`, what `dah5_version()` returns.
pub const DAH5_VERSION_NUMBER: u32 = 100;

/// File flag for `dah5_file_open`: read only (the default when neither RDONLY nor RDWR).
pub const DAH5_RDONLY: u32 = 0x1;
/// File flag for `dah5_file_open`: read and write.
pub const DAH5_RDWR: u32 = 0x2;
/// File flag for `dah5_file_create`: replace an existing file (default: fail if it exists).
pub const DAH5_TRUNC: u32 = 0x4;
/// File flag: every dims/offset/count array on this handle is in Fortran/Julia
/// (column-major) order, and is reversed to HDF5's C order inside.
pub const DAH5_ORDER_F: u32 = 0x10;

/// Transfer flag (the default, 0): independent transfer; only this rank calls.
pub const DAH5_INDEPENDENT: u32 = 0x0;
/// Transfer flag: collective transfer; every rank of the file calls, ranks with nothing to
/// move pass a zero count.
pub const DAH5_COLLECTIVE: u32 = 0x1;
/// Transfer flag: let HDF5 convert between the memory dtype and the dataset's dtype. A value
/// that does not fit (1e10 into int32, -1 into uint8, NaN into an integer) is
/// `DAH5_ERR_TYPE_MISMATCH`, never clamped: a write is refused before anything is written,
/// a read stops. Fractions are dropped toward zero, as in a C cast. Without the flag
/// differing dtypes are `DAH5_ERR_TYPE_MISMATCH`.
pub const DAH5_CONVERT: u32 = 0x2;
/// Transfer flag of `dah5_write_block` and `dah5_write_blocks`: write behind the caller.
/// The call checks what a write checks, starts the write and returns; `buf` must stay
/// allocated and unmodified until `dah5_file_wait`, `dah5_file_flush` or `dah5_file_close`
/// on the file returns. Independent writes of contiguous datasets only, in the dataset's
/// own dtype (docs/c-api.md, "Writes behind compute").
pub const DAH5_ASYNC: u32 = 0x4;

/// Dataset option flag: fill the dataset with zeros when it is created (costs a full write).
pub const DAH5_FILL_ZEROS: u32 = 0x1;
/// Dataset option flag: the shuffle filter (bytes of equal significance together), which
/// helps deflate on numbers. Makes the dataset chunked and filtered.
pub const DAH5_SHUFFLE: u32 = 0x2;

/// `max_dims` entry of `dah5_dataset_options`: the dimension can grow without limit.
pub const DAH5_UNLIMITED: u64 = u64::MAX;

/// Flag of `dah5_darray_write`: allow blocks that do not cover the whole array (the rest
/// of the dataset is left unwritten). Without it a gap is `DAH5_ERR_INVALID_ARGUMENT`.
pub const DAH5_DARRAY_PARTIAL: u32 = 0x100;

/// Flag of `dah5_darray_write` and `dah5_darray_create`: the blocks of each node's ranks go
/// to a file of that node's own (`FILE.d/NAME.nodeK.h5`, node K numbered by its lowest rank,
/// each rank's block the dataset `/block<rank>`, written by the node's ranks only: one file
/// create a node, not a rank), and the main file holds a virtual dataset over them, read as
/// one array by every HDF5 reader (docs/subfiled.md). Contiguous and whole: no chunks,
/// compression or `DAH5_DARRAY_PARTIAL`.
pub const DAH5_DARRAY_SUBFILED: u32 = 0x200;

/// Flag of `dah5_direct_open`: take an advisory fcntl write lock around every write (for
/// file systems without coherent concurrent writes, e.g. NFS).
pub const DAH5_DIRECT_LOCK: u32 = 0x20;

/// Flag of `dah5_direct_create` and `dah5_direct_open`, and file option flag: do not let
/// HDF5 lock the file while it has it open (`H5Pset_file_locking`, for file systems without
/// flock, e.g. some NFS and Lustre mounts). HDF5 1.10's MPI-IO driver takes no lock, so for
/// MPI files it matters only with HDF5 versions whose MPI-IO driver does.
pub const DAH5_NO_FILE_LOCKING: u32 = 0x40;

/// File option flag: MPI atomic mode from the start (see `dah5_file_set_atomic`).
pub const DAH5_ATOMIC: u32 = 0x1;

/// File option flag: no cross-rank agreement before the file's collective calls (as the
/// environment variable `DAH5_CHECKS=off`). Each rank still checks its own arguments, but a
/// rank whose check fails returns its error alone while the others go on into HDF5, and
/// ranks whose calls differ are not told: parallel HDF5 may then hang or corrupt the file.
/// For production runs of code that ran with checks on; see docs/failures.md.
pub const DAH5_NO_CHECKS: u32 = 0x80;

/// Element type: signed 8-bit integer.
pub const DAH5_INT8: i32 = 1;
/// Element type: signed 16-bit integer.
pub const DAH5_INT16: i32 = 2;
/// Element type: signed 32-bit integer.
pub const DAH5_INT32: i32 = 3;
/// Element type: signed 64-bit integer.
pub const DAH5_INT64: i32 = 4;
/// Element type: unsigned 8-bit integer.
pub const DAH5_UINT8: i32 = 5;
/// Element type: unsigned 16-bit integer.
pub const DAH5_UINT16: i32 = 6;
/// Element type: unsigned 32-bit integer.
pub const DAH5_UINT32: i32 = 7;
/// Element type: unsigned 64-bit integer.
pub const DAH5_UINT64: i32 = 8;
/// Element type: IEEE 754 single precision.
pub const DAH5_FLOAT32: i32 = 9;
/// Element type: IEEE 754 double precision.
pub const DAH5_FLOAT64: i32 = 10;
/// Element type: complex of two float32, stored as the compound `{r, i}` (h5py, HDF5.jl).
pub const DAH5_COMPLEX64: i32 = 11;
/// Element type: complex of two float64, stored as the compound `{r, i}`.
pub const DAH5_COMPLEX128: i32 = 12;
/// Attribute type (attributes only): a UTF-8 string.
pub const DAH5_STRING: i32 = 13;

/// Maximum number of dimensions (HDF5's limit).
pub const DAH5_MAX_NDIMS: u32 = 32;

const DTYPES: [(i32, Dtype); 12] = [
    (DAH5_INT8, Dtype::Int8),
    (DAH5_INT16, Dtype::Int16),
    (DAH5_INT32, Dtype::Int32),
    (DAH5_INT64, Dtype::Int64),
    (DAH5_UINT8, Dtype::Uint8),
    (DAH5_UINT16, Dtype::Uint16),
    (DAH5_UINT32, Dtype::Uint32),
    (DAH5_UINT64, Dtype::Uint64),
    (DAH5_FLOAT32, Dtype::Float32),
    (DAH5_FLOAT64, Dtype::Float64),
    (DAH5_COMPLEX64, Dtype::Complex64),
    (DAH5_COMPLEX128, Dtype::Complex128),
];

pub fn dtype_from_code(code: i32, parameter: &str) -> Result<Dtype> {
    DTYPES
        .iter()
        .find(|&&(c, _)| c == code)
        .map(|&(_, d)| d)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{parameter} = {code} is not a dtype: use DAH5_INT8 ({DAH5_INT8}) .. \
                 DAH5_COMPLEX128 ({DAH5_COMPLEX128})"
            ))
        })
}

pub fn dtype_code(dtype: Dtype) -> i32 {
    DTYPES
        .iter()
        .find(|&&(_, d)| d == dtype)
        .map_or(0, |&(c, _)| c)
}

pub fn check_known(flags: u32, known: u32, parameter: &str) -> Result<()> {
    let unknown = flags & !known;
    if unknown != 0 {
        return Err(Error::invalid(format!(
            "{parameter} = {flags:#x} has unknown bits {unknown:#x}"
        )));
    }
    Ok(())
}

/// The array order `flags` ask for (`DAH5_ORDER_F`).
pub fn order(flags: u32) -> Order {
    if flags & DAH5_ORDER_F != 0 {
        Order::Fortran
    } else {
        Order::C
    }
}

/// Flags of `dah5_file_create`.
pub fn create_flags(flags: u32) -> Result<(Access, Order)> {
    check_known(flags, DAH5_TRUNC | DAH5_ORDER_F, "flags")?;
    let truncate = flags & DAH5_TRUNC != 0;
    Ok((Access::Create { truncate }, order(flags)))
}

/// Flags of `dah5_file_open`.
pub fn open_flags(flags: u32) -> Result<(Access, Order)> {
    check_known(flags, DAH5_RDONLY | DAH5_RDWR | DAH5_ORDER_F, "flags")?;
    Ok((
        Access::Open {
            writable: writable(flags)?,
        },
        order(flags),
    ))
}

/// Whether open `flags` ask for writing (`DAH5_RDWR`; `DAH5_RDONLY`, the default, not).
pub fn writable(flags: u32) -> Result<bool> {
    if flags & DAH5_RDONLY != 0 && flags & DAH5_RDWR != 0 {
        return Err(Error::invalid(format!(
            "flags = {flags:#x} has both DAH5_RDONLY and DAH5_RDWR"
        )));
    }
    Ok(flags & DAH5_RDWR != 0)
}

/// Transfer flags: `(collective, convert)`. Whether the call is collective is known even
/// when other bits are invalid, so that a collective call still takes part in agreement.
pub fn is_collective(flags: u32) -> bool {
    flags & DAH5_COLLECTIVE != 0
}

pub fn transfer_convert(flags: u32) -> Result<bool> {
    check_known(flags, DAH5_COLLECTIVE | DAH5_CONVERT, "xfer_flags")?;
    Ok(flags & DAH5_CONVERT != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_constants_match_the_crate() {
        assert_eq!(
            DAH5_VERSION_MAJOR.to_string(),
            env!("CARGO_PKG_VERSION_MAJOR")
        );
        assert_eq!(
            DAH5_VERSION_MINOR.to_string(),
            env!("CARGO_PKG_VERSION_MINOR")
        );
        assert_eq!(
            DAH5_VERSION_PATCH.to_string(),
            env!("CARGO_PKG_VERSION_PATCH")
        );
        assert_eq!(
            DAH5_VERSION_NUMBER,
            DAH5_VERSION_MAJOR * 10000 + DAH5_VERSION_MINOR * 100 + DAH5_VERSION_PATCH
        );
    }

    #[test]
    fn dtype_codes_round_trip() {
        for d in Dtype::ALL {
            assert_eq!(dtype_from_code(dtype_code(d), "dtype").unwrap(), d);
        }
        assert!(dtype_from_code(0, "dtype").is_err());
        assert!(dtype_from_code(13, "dtype").is_err());
    }

    #[test]
    fn flags_are_checked() {
        assert!(create_flags(0x8).is_err());
        assert!(open_flags(DAH5_RDONLY | DAH5_RDWR).is_err());
        assert_eq!(
            open_flags(DAH5_RDWR | DAH5_ORDER_F).unwrap(),
            (Access::Open { writable: true }, Order::Fortran)
        );
        assert!(transfer_convert(0x4).is_err());
        assert!(is_collective(DAH5_COLLECTIVE | 0x100));
    }
}
