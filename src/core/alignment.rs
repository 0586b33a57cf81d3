//! Where a file's large objects start when the options leave it to dah5 (`alignment = 0`,
//! the default): on the unit the file system holding the file works in, so that a rank's
//! block is written by whole stripes or blocks and no two ranks share one.
//!
//! - Lustre: the stripe size of the file's layout (or of its directory's default layout,
//!   for a file not made yet), from the `lustre.lov` extended attribute that `lfs
//!   getstripe` reads. A file or directory with no layout of its own, or a composite
//!   (progressive) layout, gets 1 MiB: Lustre's default stripe size.
//! - GPFS (IBM Storage Scale): its block size, which it reports as `st_blksize`.
//! - Anywhere else (a local disk, NFS, GlusterFS): 1 MiB. Measured on ext4 with h5bench's
//!   VPIC-IO kernel, 1 MiB writes faster than no alignment (docs/benchmarks.md); it is also
//!   NFS's usual transfer size.
//!
//! One rank (0) asks, and every rank uses its answer: each rank's HDF5 must allocate alike.

use crate::file_name;
use crate::os;

/// Everywhere the file system names no unit of its own: what the files one process writes
/// alone get too.
pub(crate) const USUAL: u64 = crate::h5::plist::SERIAL_ALIGNMENT;

/// statfs's `f_type` of Lustre (`LL_SUPER_MAGIC`) and of GPFS (`GPFS_SUPER_MAGIC`).
const LUSTRE: u64 = 0x0BD0_0BD0;
const GPFS: u64 = 0x4750_4653;

/// The units taken from a file system: any other answer is taken as a mistake, and
/// [`USUAL`] used instead.
const SMALLEST: u64 = 64 << 10;
const LARGEST: u64 = 64 << 20;

/// The largest alignment the options may ask for: Lustre's largest stripe size. Beyond it
/// objects start terabytes apart; HDF5 then fails to write them, and closing such a file
/// crashed in `MPI_Finalize`.
pub(crate) const LARGEST_BY_HAND: u64 = 4 << 30;

/// The alignment for the file `name` (as given to dah5), from the file system that holds it
/// (or will: its directory).
pub fn for_file(name: &str) -> u64 {
    let place = file_name::file_or_directory(name);
    match os::file_system(place) {
        Ok((fs_type, block_size)) => choose(fs_type, block_size, || {
            os::extended_attribute(place, "lustre.lov")
        }),
        Err(_) => USUAL,
    }
}

/// The alignment on a file system of type `fs_type` that prefers I/O of `block_size`, where
/// a file's Lustre layout is `lustre_layout` (asked on Lustre only).
fn choose(fs_type: u64, block_size: u64, lustre_layout: impl FnOnce() -> Option<Vec<u8>>) -> u64 {
    let unit = match fs_type {
        LUSTRE => lustre_layout().and_then(|layout| lustre_stripe_size(&layout)),
        GPFS => Some(block_size),
        _ => None,
    };
    unit.filter(|&u| (SMALLEST..=LARGEST).contains(&u) && u.is_multiple_of(4096))
        .unwrap_or(USUAL)
}

/// The stripe size of a Lustre layout as `lustre.lov` gives it: a `lov_user_md` of version 1
/// or 3 (`lustre_user.h`: magic, pattern, a 16-byte object id, then the stripe size, in the
/// host's byte order). A composite layout has other magic and is not read.
fn lustre_stripe_size(layout: &[u8]) -> Option<u64> {
    const MAGIC_V1: u32 = 0x0BD1_0BD0;
    const MAGIC_V3: u32 = 0x0BD3_0BD0;
    let word = |at: usize| Some(u32::from_ne_bytes(layout.get(at..at + 4)?.try_into().ok()?));
    match word(0)? {
        MAGIC_V1 | MAGIC_V3 => word(24).map(u64::from),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(magic: u32, stripe_size: u32) -> Vec<u8> {
        let mut md = magic.to_ne_bytes().to_vec();
        md.extend(1u32.to_ne_bytes()); // RAID0
        md.extend([7u8; 16]); // object id
        md.extend(stripe_size.to_ne_bytes());
        md.extend(4u16.to_ne_bytes()); // stripe count
        md.extend(0u16.to_ne_bytes());
        md
    }

    #[test]
    fn a_lustre_layout_gives_its_stripe_size() {
        assert_eq!(
            lustre_stripe_size(&layout(0x0BD1_0BD0, 4 << 20)),
            Some(4 << 20)
        );
        assert_eq!(
            lustre_stripe_size(&layout(0x0BD3_0BD0, 1 << 20)),
            Some(1 << 20)
        );
        // Composite (progressive file layout), truncated, or no layout: not read.
        assert_eq!(lustre_stripe_size(&layout(0x0BD6_0BD0, 4 << 20)), None);
        assert_eq!(
            lustre_stripe_size(&layout(0x0BD1_0BD0, 4 << 20)[..26]),
            None
        );
        assert_eq!(lustre_stripe_size(&[]), None);
    }

    #[test]
    fn each_file_system_gets_its_unit() {
        const EXT4: u64 = 0xEF53;
        let no_layout = || None;
        assert_eq!(choose(GPFS, 16 << 20, no_layout), 16 << 20);
        assert_eq!(choose(GPFS, 256 << 10, no_layout), 256 << 10);
        // On Lustre the layout decides, whatever st_blksize says.
        let striped = || Some(layout(0x0BD1_0BD0, 2 << 20));
        assert_eq!(choose(LUSTRE, 4 << 20, striped), 2 << 20);
        assert_eq!(choose(LUSTRE, 4 << 20, no_layout), USUAL);
        assert_eq!(choose(EXT4, 4096, striped), USUAL);
        // Units out of reason are not taken.
        assert_eq!(choose(GPFS, 512 << 20, no_layout), USUAL);
        assert_eq!(choose(GPFS, 4096, no_layout), USUAL);
        assert_eq!(choose(GPFS, (1 << 20) + 1, no_layout), USUAL);
    }

    #[test]
    fn a_local_disk_gets_the_usual_alignment() {
        // The project's directory is on neither Lustre nor GPFS where the tests run.
        assert_eq!(for_file("Cargo.toml"), USUAL);
        assert_eq!(for_file("no/such/dir/new.h5"), USUAL);
    }
}
