//! The environment variables dah5 reads, checked where a file is created or opened: the
//! first call that reads them, and a collective one, so that a value dah5 cannot read is
//! refused on every rank (a rank's error goes into the agreement like a bad argument), not
//! ignored without a word. Where they are read later, a refused value is taken for the
//! default (`os::switched_off`, `timeout::timeout_from_env`): it never got that far.

use crate::core::block::max_piece_bytes;
use crate::core::file::CHECKS_ENV;
use crate::error::Result;
use crate::mpi::board::SHARED_MEMORY_ENV;
use crate::{h5, mpi, os};

/// Fail, naming the variable and what it takes, if one of dah5's variables holds a value
/// dah5 cannot read. Local.
pub fn check() -> Result<()> {
    for switch in [CHECKS_ENV, SHARED_MEMORY_ENV, h5::STACK_ENV] {
        os::switch(switch)?;
    }
    mpi::timeout::timeout_setting()?;
    mpi::info::file_sync_setting()?;
    max_piece_bytes()?;
    Ok(())
}
