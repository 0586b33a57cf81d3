//! Fault injection for the tests of failure paths that real programs reach only at a scale
//! the test machines do not have (a block table too large for HDF5's attributes takes 256
//! ranks). `DAH5_TEST_FAULT=STEP@RANK` makes the step named STEP fail on rank RANK with
//! `DAH5_ERR_IO`. Unset (always, outside the tests), it costs one environment lookup per
//! step.

use crate::error::{Error, ErrorKind, Result};

/// The environment variable.
pub(crate) const ENV: &str = "DAH5_TEST_FAULT";

/// Fail if the tests asked for step `step` to fail on `rank`.
pub fn check(step: &str, rank: i32) -> Result<()> {
    let wanted = std::env::var(ENV).is_ok_and(|v| v == format!("{step}@{rank}"));
    if wanted {
        return Err(Error::new(
            ErrorKind::Io,
            format!("{step} failed on purpose ({ENV})"),
        ));
    }
    Ok(())
}
