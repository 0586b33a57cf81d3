//! Where a dataset's elements sit in its file, for the writes that go around HDF5 (direct
//! mode, writes behind with `DAH5_ASYNC`): only a contiguous, allocated, unfiltered dataset
//! stored in this machine's byte order keeps them at one known place, in row-major order,
//! as the bytes of the caller's buffer.

use crate::dtype::Dtype;
use crate::error::Result;
use crate::h5;
use crate::h5::id::Id;

/// A dataset's raw data as [`place`] found it.
pub enum Place {
    /// Element 0 is at byte `offset` of the file; the elements are `dtype`'s native bytes.
    At { offset: u64, dtype: Dtype },
    /// Its data has no such place: why, for the caller's message.
    Unfit(&'static str),
}

/// Where the raw data of `dataset` is, or why it cannot be written around HDF5.
pub fn place(dataset: &Id) -> Result<Place> {
    let storage = h5::dataset::storage(dataset)?;
    let why = if !storage.contiguous {
        Some("is not contiguous (chunked or compact)")
    } else if storage.filtered {
        Some("is compressed or filtered")
    } else if storage.external {
        Some("keeps its data in external files")
    } else {
        None
    };
    if let Some(why) = why {
        return Ok(Place::Unfit(why));
    }
    let Some(offset) = storage.offset else {
        return Ok(Place::Unfit("has no storage allocated yet"));
    };
    let file_type = h5::dataset::file_type(dataset)?;
    let dtype = h5::types::dtype_of(file_type.raw())?;
    if !h5::types::equal(&file_type, &h5::types::native(dtype)?)? {
        return Ok(Place::Unfit("is stored in a foreign byte order or layout"));
    }
    Ok(Place::At { offset, dtype })
}
