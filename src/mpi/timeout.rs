//! How long a collective call waits for the other ranks (`DAH5_COLLECTIVE_TIMEOUT`).

use std::time::Duration;

use crate::error::{Error, Result};

/// Environment variable: seconds a collective call waits for the other ranks (default 60);
/// 0 turns the timeout off.
pub(crate) const TIMEOUT_ENV: &str = "DAH5_COLLECTIVE_TIMEOUT";
const DEFAULT_TIMEOUT_SECONDS: f64 = 60.0;

/// The timeout the environment asks for, or `None` when it is off: then the agreement is a
/// blocking `MPI_Allreduce`. Read once per file, when its communicator is made
/// (`Comm::timeout`): reading the environment costs more than a small agreement. A value
/// [`timeout_setting`] refuses is the default here (the create or open refuses it).
pub fn timeout_from_env() -> Option<Duration> {
    timeout_setting().unwrap_or(Some(Duration::from_secs_f64(DEFAULT_TIMEOUT_SECONDS)))
}

/// What `DAH5_COLLECTIVE_TIMEOUT` says: seconds (a number, 0 for no timeout), the default
/// when unset; any other value is refused, naming the variable.
pub fn timeout_setting() -> Result<Option<Duration>> {
    let seconds = match crate::os::setting(TIMEOUT_ENV)? {
        None => DEFAULT_TIMEOUT_SECONDS,
        Some(text) => text
            .parse::<f64>()
            .ok()
            .filter(|s| *s >= 0.0 && Duration::try_from_secs_f64(*s).is_ok())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{TIMEOUT_ENV}={text:?} is not a number of seconds: set it to the seconds \
                     a collective call waits for the other ranks (default \
                     {DEFAULT_TIMEOUT_SECONDS}; 0 waits for ever), or unset it"
                ))
            })?,
    };
    Ok((seconds > 0.0).then(|| Duration::from_secs_f64(seconds)))
}
