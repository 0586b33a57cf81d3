//! Flags, dtype codes, version numbers and option structs of the C ABI, and their
//! translation into core types.

use crate::core::dataset::DatasetOptions;
use crate::core::dtype::Dtype;
use crate::core::error::{Error, Result};
use crate::core::file::{Access, DEFAULT_ALIGNMENT, DEFAULT_ALIGNMENT_THRESHOLD};
use crate::core::shape::Order;

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
/// Transfer flag: let HDF5 convert between the memory dtype and the dataset's dtype (values
/// that do not fit are clamped). Without it differing dtypes are `DAH5_ERR_TYPE_MISMATCH`.
pub const DAH5_CONVERT: u32 = 0x2;

/// Dataset option flag: fill the dataset with zeros when it is created (costs a full write).
pub const DAH5_FILL_ZEROS: u32 = 0x1;

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

/// Maximum number of dimensions (HDF5's limit).
pub const DAH5_MAX_NDIMS: u32 = 32;

/// The `version` of `dah5_file_options` this library understands.
pub const DAH5_FILE_OPTIONS_VERSION: u32 = 1;
/// The `version` of `dah5_dataset_options` this library understands.
pub const DAH5_DATASET_OPTIONS_VERSION: u32 = 1;

/// Options for `dah5_file_create_with` / `dah5_file_open_with`. Fill it with
/// `dah5_file_options_default`, then change fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dah5_file_options {
    /// Must be `DAH5_FILE_OPTIONS_VERSION`.
    pub version: u32,
    /// Reserved, must be 0.
    pub reserved: u32,
    /// Objects of at least this many bytes are aligned (`H5Pset_alignment`); default 1 MiB.
    pub alignment_threshold: u64,
    /// Their file address is a multiple of this; default 1 MiB. Must be at least 1.
    pub alignment: u64,
}

/// Options for `dah5_dataset_create`. Fill it with `dah5_dataset_options_default`, then
/// change fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct dah5_dataset_options {
    /// Must be `DAH5_DATASET_OPTIONS_VERSION`.
    pub version: u32,
    /// `DAH5_FILL_ZEROS` or 0.
    pub flags: u32,
}

impl Default for dah5_file_options {
    fn default() -> Self {
        dah5_file_options {
            version: DAH5_FILE_OPTIONS_VERSION,
            reserved: 0,
            alignment_threshold: DEFAULT_ALIGNMENT_THRESHOLD,
            alignment: DEFAULT_ALIGNMENT,
        }
    }
}

impl Default for dah5_dataset_options {
    fn default() -> Self {
        dah5_dataset_options {
            version: DAH5_DATASET_OPTIONS_VERSION,
            flags: 0,
        }
    }
}

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

fn check_known(flags: u32, known: u32, parameter: &str) -> Result<()> {
    let unknown = flags & !known;
    if unknown != 0 {
        return Err(Error::invalid(format!(
            "{parameter} = {flags:#x} has unknown bits {unknown:#x}"
        )));
    }
    Ok(())
}

fn order(flags: u32) -> Order {
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
    if flags & DAH5_RDONLY != 0 && flags & DAH5_RDWR != 0 {
        return Err(Error::invalid(format!(
            "flags = {flags:#x} has both DAH5_RDONLY and DAH5_RDWR"
        )));
    }
    let writable = flags & DAH5_RDWR != 0;
    Ok((Access::Open { writable }, order(flags)))
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

pub fn file_options(options: &dah5_file_options) -> Result<(u64, u64)> {
    if options.version != DAH5_FILE_OPTIONS_VERSION || options.reserved != 0 {
        return Err(Error::invalid(format!(
            "options->version = {} (reserved = {}): this library understands version {} \
             with reserved = 0; fill the struct with dah5_file_options_default",
            options.version, options.reserved, DAH5_FILE_OPTIONS_VERSION
        )));
    }
    Ok((options.alignment_threshold, options.alignment))
}

pub fn dataset_options(options: &dah5_dataset_options) -> Result<DatasetOptions> {
    if options.version != DAH5_DATASET_OPTIONS_VERSION {
        return Err(Error::invalid(format!(
            "options->version = {}: this library understands version {}; fill the struct \
             with dah5_dataset_options_default",
            options.version, DAH5_DATASET_OPTIONS_VERSION
        )));
    }
    check_known(options.flags, DAH5_FILL_ZEROS, "options->flags")?;
    Ok(DatasetOptions {
        fill_with_zeros: options.flags & DAH5_FILL_ZEROS != 0,
    })
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
