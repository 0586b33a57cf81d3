//! The MPI boundary: communicator handling and the agreement that guards every collective
//! call. The library never initializes or finalizes MPI; it checks that the caller has. Only
//! the `dah5` command's parallel subcommand (`merge`) starts MPI itself ([`start`]).

pub mod agree;
pub mod board;
pub mod comm;
pub mod digest;
pub mod finalize;
pub mod foreign;
pub mod info;
pub mod lifecycle;
pub mod roll_call;
pub mod status;
pub mod timeout;

pub use foreign::check_abi;
pub use lifecycle::{
    ensure_active, finish, is_active, library_version, start, world_handle, world_rank,
};
pub use status::kind_of_text;
