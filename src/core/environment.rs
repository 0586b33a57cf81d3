//! The environment variables dah5 reads, checked where a file is created or opened: the
//! first call that reads them, and a collective one, so that a value dah5 cannot read is
//! refused on every rank (a rank's error goes into the agreement like a bad argument), not
//! ignored without a word. Where they are read later, a refused value is taken for the
//! default (`os::switched_off`, `timeout::timeout_from_env`): it never got that far.

use crate::core::split::max_piece_bytes;
use crate::error::Result;
use crate::mpi::board::SHARED_MEMORY_ENV;
use crate::{h5, mpi, os};

/// Environment variable: `off` (a switch, `os::switch`) turns the agreement of collective
/// calls off for every file the process opens (as the file option `DAH5_NO_CHECKS`), for
/// production runs of code that ran with checks on before.
pub(crate) const CHECKS_ENV: &str = "DAH5_CHECKS";

/// Environment variable, FOR TESTS ONLY: `N` cuts each node's ranks into groups of N
/// ranks (by rank on the node), each taken for a node of its own by subfiled darrays
/// (`core::subfiles`: a subfile per node), so that one host shows what many nodes write.
pub(crate) const TEST_RANKS_PER_NODE_ENV: &str = "DAH5_TEST_RANKS_PER_NODE";

/// [`TEST_RANKS_PER_NODE_ENV`]: `None` when unset.
pub(crate) fn test_ranks_per_node() -> Result<Option<u32>> {
    let Some(text) = os::setting(TEST_RANKS_PER_NODE_ENV)? else {
        return Ok(None);
    };
    match text.parse::<u32>() {
        Ok(n) if n > 0 => Ok(Some(n)),
        _ => Err(crate::error::Error::invalid(format!(
            "{TEST_RANKS_PER_NODE_ENV}={text:?} is not a positive number of ranks (a test's \
             node size); unset it outside tests"
        ))),
    }
}

/// Fail, naming the variable and what it takes, if one of dah5's variables holds a value
/// dah5 cannot read. Local.
pub fn check() -> Result<()> {
    for switch in [CHECKS_ENV, SHARED_MEMORY_ENV, h5::STACK_ENV] {
        os::switch(switch)?;
    }
    mpi::timeout::timeout_setting()?;
    mpi::info::file_sync_setting()?;
    max_piece_bytes()?;
    test_ranks_per_node()?;
    Ok(())
}
