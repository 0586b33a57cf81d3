//! The property lists behind dah5's defaults.

use hdf5_sys::h5ac::{H5AC__CURR_CACHE_CONFIG_VERSION, H5AC_cache_config_t};
use hdf5_sys::h5d::{
    H5D_ALLOC_TIME_EARLY, H5D_CHUNKED, H5D_CONTIGUOUS, H5D_FILL_TIME_ALLOC, H5D_FILL_TIME_NEVER,
    H5D_LAYOUT_ERROR,
};
use hdf5_sys::h5i::hid_t;
use hdf5_sys::h5p::H5FD_mpio_xfer_t::{H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT};
use hdf5_sys::h5p::{
    H5P_CLS_DATASET_ACCESS, H5P_CLS_DATASET_CREATE, H5P_CLS_DATASET_XFER, H5P_CLS_FILE_ACCESS,
    H5P_CLS_LINK_ACCESS, H5P_CLS_LINK_CREATE, H5Pclose, H5Pcreate, H5Pget_chunk, H5Pget_filter2,
    H5Pget_layout, H5Pget_mdc_config, H5Pget_nfilters, H5Pget_virtual_count,
    H5Pget_virtual_dsetname, H5Pget_virtual_filename, H5Pset_alignment,
    H5Pset_all_coll_metadata_ops, H5Pset_alloc_time, H5Pset_cache, H5Pset_chunk,
    H5Pset_coll_metadata_write, H5Pset_create_intermediate_group, H5Pset_deflate, H5Pset_dxpl_mpio,
    H5Pset_fapl_core, H5Pset_fapl_mpio, H5Pset_file_locking, H5Pset_fill_time, H5Pset_layout,
    H5Pset_mdc_config, H5Pset_meta_block_size, H5Pset_shuffle, H5Pset_type_conv_cb, H5Pset_virtual,
};
use hdf5_sys::h5t::{H5T_conv_except_t, H5T_conv_ret_t};
use mpi_sys::MPI_Comm;
use std::ffi::c_void;

use crate::dtype::{Dtype, Value};
use crate::error::Result;
use crate::h5::id::Id;
use crate::mpi::info::Info;

/// Objects of at least this many bytes are aligned: a dataset's raw data then starts on a
/// file-system block boundary.
pub(crate) const DEFAULT_ALIGNMENT_THRESHOLD: u64 = 1 << 20;
/// The alignment of the files one process writes alone (direct mode, subfiles).
pub(crate) const SERIAL_ALIGNMENT: u64 = 1 << 20;

/// HDF5 file-access tuning (0 means HDF5's default where it says so).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    pub alignment_threshold: u64,
    /// 0 (the default): chosen from the file system when the file is created or opened
    /// (`core::alignment`), before any property list is made with it.
    pub alignment: u64,
    /// `H5Pset_meta_block_size`: small metadata objects are packed into blocks this big.
    pub meta_block_size: u64,
    /// Initial (and at least maximum) size of the metadata cache.
    pub metadata_cache_bytes: u64,
    /// `H5Pset_file_locking`: let HDF5 lock the file (its default).
    pub file_locking: bool,
}

/// The largest HDF5's metadata cache grows by default (`H5AC__DEFAULT_MAX_CACHE_SIZE`).
const DEFAULT_MAX_METADATA_CACHE: u64 = 32 << 20;

impl Tuning {
    /// The most the metadata cache of a file with this tuning holds.
    pub fn metadata_cache_limit(&self) -> u64 {
        self.metadata_cache_bytes.max(DEFAULT_MAX_METADATA_CACHE)
    }
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            alignment_threshold: DEFAULT_ALIGNMENT_THRESHOLD,
            alignment: 0,
            meta_block_size: 0,
            metadata_cache_bytes: 0,
            file_locking: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `None`: contiguous.
    pub chunk: Option<Vec<u64>>,
    /// `None`: fixed at the dataset's dims.
    pub max_dims: Option<Vec<u64>>,
    pub deflate_level: u32,
    pub shuffle: bool,
}

impl Layout {
    /// dah5's default: contiguous, fixed dims, no filters.
    pub fn contiguous() -> Layout {
        Layout {
            chunk: None,
            max_dims: None,
            deflate_level: 0,
            shuffle: false,
        }
    }

    /// Whether this is [`Layout::contiguous`] (without building one to compare with).
    pub fn is_contiguous(&self) -> bool {
        self.chunk.is_none() && self.max_dims.is_none() && !self.filtered()
    }

    /// Compressed (or shuffled): parallel HDF5 then writes only collectively.
    pub fn filtered(&self) -> bool {
        self.deflate_level > 0 || self.shuffle
    }
}

// The attribute access class, which hdf5-sys does not declare (HDF5 1.10's
// H5P_ATTRIBUTE_ACCESS macro reads this global).
unsafe extern "C" {
    static H5P_CLS_ATTRIBUTE_ACCESS_ID_g: hdf5_sys::h5i::hid_t;
}

fn create(class: &'static hdf5_sys::h5i::hid_t) -> Result<Id> {
    let class = crate::h5::library::predefined(class);
    // SAFETY: the class id is one of HDF5's predefined classes, read after H5open.
    h5call!(unsafe { H5Pcreate(class) }, closed by H5Pclose)
}

/// File access: the MPI-IO driver on `comm` with the MPI_Info hints, all metadata
/// operations collective (reads and writes: every rank makes the same metadata calls, and
/// HDF5 then does them once, on one rank, and broadcasts), and the tuning of `tuning`.
/// A `writable` file has no chunk cache (see [`no_chunk_cache`]).
pub fn file_access(comm: MPI_Comm, info: &Info, tuning: &Tuning, writable: bool) -> Result<Id> {
    let fapl = create(H5P_CLS_FILE_ACCESS)?;
    let p = fapl.raw();
    let info = info.raw();
    // SAFETY: `p` is a file access list; HDF5 dups `comm` and `info`, so they need not
    // outlive the list.
    h5call!(unsafe { H5Pset_fapl_mpio(p, comm, info) })?;
    // SAFETY: `p` is a file access list.
    h5call!(unsafe { H5Pset_all_coll_metadata_ops(p, 1) })?;
    // SAFETY: `p` is a file access list.
    h5call!(unsafe { H5Pset_coll_metadata_write(p, 1) })?;
    let (threshold, alignment) = (tuning.alignment_threshold, tuning.alignment);
    // SAFETY: `p` is a file access list.
    h5call!(unsafe { H5Pset_alignment(p, threshold, alignment) })?;
    if tuning.meta_block_size > 0 {
        let size = tuning.meta_block_size;
        // SAFETY: `p` is a file access list.
        h5call!(unsafe { H5Pset_meta_block_size(p, size) })?;
    }
    if tuning.metadata_cache_bytes > 0 {
        set_metadata_cache(p, tuning.metadata_cache_bytes as usize)?;
    }
    set_file_locking(p, tuning.file_locking)?;
    if writable {
        no_chunk_cache(p)?;
    }
    Ok(fapl)
}

/// Turn HDF5's raw-data chunk cache off (0 bytes) for every dataset of the file. Parallel
/// HDF5 caches the chunks of filtered datasets that a rank reads, and its collective write
/// of filtered chunks (the only way to write them) neither updates nor evicts that cache:
/// later reads on the rank returned the old values (independent), or failed in inflate()
/// (collective: the cached chunk no longer matches its new size and address on disk).
/// Unfiltered chunks bypass the cache in a writable parallel file anyway. A read-only file
/// does not change while open, so it keeps the cache.
fn no_chunk_cache(fapl: hid_t) -> Result<()> {
    // SAFETY: `fapl` is a file access list; the element count is ignored by HDF5, the slot
    // count is HDF5's default, and 0 bytes means no chunk is ever cached.
    h5call!(unsafe { H5Pset_cache(fapl, 0, 521, 0, 0.75) })?;
    Ok(())
}

/// Turn HDF5's file locking off where `locking` is false (it is on by default).
fn set_file_locking(fapl: hid_t, locking: bool) -> Result<()> {
    if !locking {
        // SAFETY: `fapl` is a file access list (HDF5 >= 1.10.7).
        h5call!(unsafe { H5Pset_file_locking(fapl, 0, 1) })?;
    }
    Ok(())
}

/// File access for one process without MPI (HDF5's default sec2 driver), with the
/// alignment a parallel file has on a local disk. `locking`: HDF5 flocks the file while it
/// has it open (its default).
pub fn serial_file_access(locking: bool) -> Result<Id> {
    let fapl = create(H5P_CLS_FILE_ACCESS)?;
    let p = fapl.raw();
    // SAFETY: `p` is a file access list.
    h5call!(unsafe { H5Pset_alignment(p, DEFAULT_ALIGNMENT_THRESHOLD, SERIAL_ALIGNMENT) })?;
    set_file_locking(p, locking)?;
    Ok(fapl)
}

/// File access for the ranks of one node together (a subfiled darray's node subfile): the
/// MPI-IO driver on `node` without hints, metadata calls as HDF5 makes them by default, and
/// the alignment of [`serial_file_access`].
pub fn node_file_access(node: MPI_Comm, info: &Info, locking: bool) -> Result<Id> {
    let fapl = create(H5P_CLS_FILE_ACCESS)?;
    let p = fapl.raw();
    let info = info.raw();
    // SAFETY: `p` is a file access list; HDF5 dups `node` and `info`.
    h5call!(unsafe { H5Pset_fapl_mpio(p, node, info) })?;
    // SAFETY: `p` is a file access list.
    h5call!(unsafe { H5Pset_alignment(p, DEFAULT_ALIGNMENT_THRESHOLD, SERIAL_ALIGNMENT) })?;
    set_file_locking(p, locking)?;
    Ok(fapl)
}

/// File access in memory only (HDF5's core driver, nothing written to storage), for a file
/// whose bytes are taken with [`crate::h5::file::empty_image`].
pub fn in_memory_file_access() -> Result<Id> {
    let fapl = create(H5P_CLS_FILE_ACCESS)?;
    let p = fapl.raw();
    // SAFETY: `p` is a file access list; 64 KiB is the step the memory grows by, and
    // without a backing store no file is made.
    h5call!(unsafe { H5Pset_fapl_core(p, 64 << 10, 0) })?;
    Ok(fapl)
}

/// Start the metadata cache at `bytes` and let it grow to at least that (HDF5 requires
/// min <= initial <= max).
fn set_metadata_cache(fapl: hdf5_sys::h5i::hid_t, bytes: usize) -> Result<()> {
    // SAFETY: H5AC_cache_config_t is plain data; H5Pget_mdc_config fills it below.
    let mut config: H5AC_cache_config_t = unsafe { std::mem::zeroed() };
    config.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    let c: *mut H5AC_cache_config_t = &mut config;
    // SAFETY: `fapl` is a file access list; `c` points to a config of the current version.
    h5call!(unsafe { H5Pget_mdc_config(fapl, c) })?;
    config.set_initial_size = 1;
    config.initial_size = bytes;
    config.min_size = config.min_size.min(bytes);
    config.max_size = config.max_size.max(bytes);
    let c: *const H5AC_cache_config_t = &config;
    // SAFETY: as above; HDF5 copies the config.
    h5call!(unsafe { H5Pset_mdc_config(fapl, c) })?;
    Ok(())
}

/// Dataset creation. Contiguous datasets are allocated at creation and never filled unless
/// asked (filling writes the whole dataset once before the user's data does; HDF5's default
/// fill value is zero). Chunked ones get their chunk shape and filters; a filtered dataset
/// keeps HDF5's allocation and fill defaults, which its collective writes need (chunks are
/// allocated as they are written, and never-written chunks read as zeros).
pub fn dataset_create(layout: &Layout, fill_with_zeros: bool) -> Result<Id> {
    let dcpl = create(H5P_CLS_DATASET_CREATE)?;
    let p = dcpl.raw();
    match &layout.chunk {
        None => {
            // SAFETY: `p` is a dataset creation list.
            h5call!(unsafe { H5Pset_layout(p, H5D_CONTIGUOUS) })?;
        }
        Some(chunk) => {
            // SAFETY: `p` is a dataset creation list; `chunk` has one entry per dim.
            h5call!(unsafe { H5Pset_chunk(p, chunk.len() as i32, chunk.as_ptr()) })?;
        }
    }
    if layout.shuffle {
        // SAFETY: `p` is a chunked dataset creation list.
        h5call!(unsafe { H5Pset_shuffle(p) })?;
    }
    if layout.deflate_level > 0 {
        let level = layout.deflate_level;
        // SAFETY: `p` is a chunked dataset creation list.
        h5call!(unsafe { H5Pset_deflate(p, level) })?;
    }
    if layout.filtered() {
        return Ok(dcpl);
    }
    // SAFETY: `p` is a dataset creation list.
    h5call!(unsafe { H5Pset_alloc_time(p, H5D_ALLOC_TIME_EARLY) })?;
    let fill_time = if fill_with_zeros {
        H5D_FILL_TIME_ALLOC
    } else {
        H5D_FILL_TIME_NEVER
    };
    // SAFETY: `p` is a dataset creation list.
    h5call!(unsafe { H5Pset_fill_time(p, fill_time) })?;
    Ok(dcpl)
}

/// One region of a virtual dataset: its block `offset, count` (storage order) is the
/// whole dataset `source` of the file `file_name` (relative to the virtual dataset's file,
/// or absolute).
pub struct VirtualMap<'a> {
    pub offset: &'a [u64],
    pub count: &'a [u64],
    pub file_name: &'a str,
    pub source: &'a str,
}

/// Dataset creation of a virtual dataset (HDF5 1.10's VDS) over `space`, made of `maps`.
pub fn virtual_dataset<'a>(space: &Id, maps: impl Iterator<Item = VirtualMap<'a>>) -> Result<Id> {
    let dcpl = create(H5P_CLS_DATASET_CREATE)?;
    let p = dcpl.raw();
    for map in maps {
        let region = crate::h5::space::select_block(space, map.offset, map.count)?;
        let source_space = crate::h5::space::simple(map.count)?;
        // HDF5 reads a source file name as a printf-like pattern: a '%' is written "%%".
        let file_name = crate::h5::name::c_string(&map.file_name.replace('%', "%%"))?;
        let source = crate::h5::name::c_string(map.source)?;
        let (r, s) = (region.raw(), source_space.raw());
        // SAFETY: `p` is a dataset creation list, `r` and `s` dataspaces, the names
        // NUL-terminated; HDF5 copies all of them.
        h5call!(unsafe { H5Pset_virtual(p, r, file_name.as_ptr(), source.as_ptr(), s) })?;
    }
    Ok(dcpl)
}

/// The source of each mapping of a virtual dataset's creation list, in order: (file name
/// as given to [`virtual_dataset`], dataset name).
pub fn virtual_sources(dcpl: &Id) -> Result<Vec<(String, String)>> {
    let p = dcpl.raw();
    let mut count = 0;
    let c: *mut usize = &mut count;
    // SAFETY: `p` is a dataset creation list; `c` a live out-parameter.
    h5call!(unsafe { H5Pget_virtual_count(p, c) })?;
    let null = std::ptr::null_mut();
    let text = |mut buf: Vec<u8>| {
        buf.pop(); // the NUL
        String::from_utf8(buf).map_err(|_| {
            crate::error::Error::new(
                crate::error::ErrorKind::TypeMismatch,
                "a virtual dataset's source name is not UTF-8",
            )
        })
    };
    let mut sources = Vec::with_capacity(count);
    for i in 0..count {
        // SAFETY: `p` is a virtual dataset's creation list, `i` below its count; a NULL
        // buffer asks for the length.
        let len = h5call!(unsafe { H5Pget_virtual_filename(p, i, null, 0) })? as usize;
        let mut file = vec![0u8; len + 1];
        let (f, n) = (file.as_mut_ptr().cast(), file.len());
        // SAFETY: as above; `f` has room for `n` bytes, NUL included.
        h5call!(unsafe { H5Pget_virtual_filename(p, i, f, n) })?;
        // SAFETY: as above.
        let len = h5call!(unsafe { H5Pget_virtual_dsetname(p, i, null, 0) })? as usize;
        let mut dataset = vec![0u8; len + 1];
        let (d, n) = (dataset.as_mut_ptr().cast(), dataset.len());
        // SAFETY: as above; `d` has room for `n` bytes, NUL included.
        h5call!(unsafe { H5Pget_virtual_dsetname(p, i, d, n) })?;
        // The file name was written as a printf-like pattern ('%' as "%%").
        sources.push((text(file)?.replace("%%", "%"), text(dataset)?));
    }
    Ok(sources)
}

/// Whether a dataset creation list has filters (compression, shuffle, checksums).
pub fn has_filters(dcpl: &Id) -> Result<bool> {
    let p = dcpl.raw();
    // SAFETY: `p` is a dataset creation list.
    Ok(h5call!(unsafe { H5Pget_nfilters(p) })? > 0)
}

/// Attribute and link access lists for a read that one rank makes alone: they override the
/// file's collective metadata reads for this one operation.
pub fn independent_read() -> Result<(Id, Id)> {
    // SAFETY: taking the address of a global of libhdf5 (read by `create` after H5open).
    let aapl = create(unsafe { &H5P_CLS_ATTRIBUTE_ACCESS_ID_g })?;
    let lapl = create(H5P_CLS_LINK_ACCESS)?;
    for list in [&aapl, &lapl] {
        let p = list.raw();
        // SAFETY: `p` is an attribute or link access list.
        h5call!(unsafe { H5Pset_all_coll_metadata_ops(p, 0) })?;
    }
    Ok((aapl, lapl))
}

/// The chunk extents of a dataset creation list, or `None` when not chunked.
pub fn chunk(dcpl: &Id) -> Result<Option<Vec<u64>>> {
    let p = dcpl.raw();
    // SAFETY: `p` is a dataset creation list.
    let layout = h5call!(unsafe { H5Pget_layout(p) }, fails if |l| l == H5D_LAYOUT_ERROR)?;
    if layout != H5D_CHUNKED {
        return Ok(None);
    }
    let mut dims = [0u64; 32];
    let d = dims.as_mut_ptr();
    // SAFETY: `p` is a chunked dataset creation list; `dims` has room for HDF5's 32 dims.
    let n = h5call!(unsafe { H5Pget_chunk(p, 32, d) })?;
    Ok(Some(dims[..n as usize].to_vec()))
}

/// The names of a dataset creation list's filters, in pipeline order ("deflate", ...).
pub fn filter_names(dcpl: &Id) -> Result<Vec<String>> {
    let p = dcpl.raw();
    // SAFETY: `p` is a dataset creation list.
    let n = h5call!(unsafe { H5Pget_nfilters(p) })?;
    (0..n as u32)
        .map(|i| {
            let (mut flags, mut nvalues, mut values) = (0u32, 8usize, [0u32; 8]);
            let mut name = [0 as std::ffi::c_char; 64];
            let (f, nv, v, nm) = (&raw mut flags, &raw mut nvalues, values.as_mut_ptr(), name.as_mut_ptr());
            // SAFETY: `p` is a dataset creation list; every out pointer has the room given.
            h5call!(unsafe { H5Pget_filter2(p, i, f, nv, v, 64, nm, std::ptr::null_mut()) }, fails if |id| id < 0)?;
            // SAFETY: HDF5 NUL-terminates the name within the 64 bytes given.
            let name = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
            Ok(name.to_string_lossy().into_owned())
        })
        .collect()
}

/// Dataset access for an open that one rank makes alone (see [`independent_read`]).
pub fn independent_dataset_access() -> Result<Id> {
    let dapl = create(H5P_CLS_DATASET_ACCESS)?;
    let p = dapl.raw();
    // SAFETY: `p` is a dataset access list.
    h5call!(unsafe { H5Pset_all_coll_metadata_ops(p, 0) })?;
    Ok(dapl)
}

/// `H5P_DEFAULT`: HDF5's default list of any class.
pub(crate) const DEFAULT: hid_t = hdf5_sys::h5p::H5P_DEFAULT;

/// Link creation: make the intermediate groups of a name like "results/step1/u".
pub fn link_create() -> Result<Id> {
    let lcpl = create(H5P_CLS_LINK_CREATE)?;
    let p = lcpl.raw();
    // SAFETY: `p` is a link creation list.
    h5call!(unsafe { H5Pset_create_intermediate_group(p, 1) })?;
    Ok(lcpl)
}

thread_local! {
    /// The value [`refuse`] stopped a conversion at; read by [`conversion_refused`].
    static REFUSED: std::cell::Cell<Option<Value>> = const { std::cell::Cell::new(None) };
}

/// A conversion's source and destination (real) dtypes as the callback's user data: a
/// number dressed as a pointer, never dereferenced.
fn conversion_tag(from: Dtype, to: Dtype) -> *mut c_void {
    let index = |d: Dtype| Dtype::ALL.iter().position(|&a| a == d).unwrap_or(0);
    std::ptr::without_provenance_mut(1 + index(from) * Dtype::ALL.len() + index(to))
}

fn conversion_of(tag: *mut c_void) -> Option<(Dtype, Dtype)> {
    let n = tag.addr().checked_sub(1)?;
    let count = Dtype::ALL.len();
    Some((*Dtype::ALL.get(n / count)?, *Dtype::ALL.get(n % count)?))
}

/// HDF5's conversion exception callback: stop at a value the destination does not hold by
/// dah5's rule (`Dtype::holds`, which writes follow too), instead of clamping it or, for
/// NaN into an integer, storing whatever the C cast gives (INT_MIN). Where the value is
/// held, HDF5's own handling is right: its fraction dropped (a float a little beyond an
/// integer's range truncates to the limit HDF5 puts there), or an infinity between floats.
extern "C" fn refuse(
    except: H5T_conv_except_t,
    _src: hid_t,
    _dst: hid_t,
    src_buf: *mut c_void,
    _dst_buf: *mut c_void,
    tag: *mut c_void,
) -> H5T_conv_ret_t {
    let Some((from, to)) = conversion_of(tag) else {
        return H5T_conv_ret_t::H5T_CONV_ABORT;
    };
    // An integer losing precision on its way into a float is allowed.
    if except == H5T_conv_except_t::H5T_CONV_EXCEPT_PRECISION {
        return H5T_conv_ret_t::H5T_CONV_UNHANDLED;
    }
    // HDF5 always passes the value; without it nothing can be judged.
    if src_buf.is_null() {
        return H5T_conv_ret_t::H5T_CONV_ABORT;
    }
    // SAFETY: HDF5 passes the source element, `from`'s size, in this machine's byte order
    // (its soft conversions reverse a value stored otherwise before they call back).
    let source = unsafe { std::slice::from_raw_parts(src_buf.cast::<u8>(), from.size()) };
    let value = from.decode(source);
    if to.holds(value) {
        return H5T_conv_ret_t::H5T_CONV_UNHANDLED;
    }
    REFUSED.with(|r| r.set(Some(value)));
    H5T_conv_ret_t::H5T_CONV_ABORT
}

/// Make the conversions of transfers with `dxpl` from `from` to `to` (real dtypes: a
/// complex's component) fail at a value that does not fit. See `core::convert`.
pub fn refuse_out_of_range(dxpl: &Id, from: Dtype, to: Dtype) -> Result<()> {
    let p = dxpl.raw();
    let tag = conversion_tag(from, to);
    REFUSED.with(|r| r.set(None));
    // SAFETY: `p` is a transfer list; `refuse` never dereferences its user data.
    h5call!(unsafe { H5Pset_type_conv_cb(p, Some(refuse), tag) }).map(|_| ())
}

/// The value at which [`refuse`] stopped a conversion on this thread since the last
/// [`refuse_out_of_range`], if it did.
pub fn conversion_refused() -> Option<Value> {
    REFUSED.with(|r| r.get())
}

/// Data transfer: independent or collective MPI-IO.
pub fn transfer(collective: bool) -> Result<Id> {
    let dxpl = create(H5P_CLS_DATASET_XFER)?;
    let p = dxpl.raw();
    let mode = if collective {
        H5FD_MPIO_COLLECTIVE
    } else {
        H5FD_MPIO_INDEPENDENT
    };
    // SAFETY: `p` is a transfer list.
    h5call!(unsafe { H5Pset_dxpl_mpio(p, mode) })?;
    Ok(dxpl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversion_tag_gives_back_its_two_dtypes() {
        for from in Dtype::ALL {
            for to in Dtype::ALL {
                assert_eq!(conversion_of(conversion_tag(from, to)), Some((from, to)));
            }
        }
        assert_eq!(conversion_of(std::ptr::null_mut()), None);
    }
}
