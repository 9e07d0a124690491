//! One module per subcommand: its clap arguments (help texts included)
//! and the `run` that carries them out, so `main` is only parsing and
//! dispatch.

pub(crate) mod calibrate;
pub(crate) mod clean;
pub(crate) mod compare;
pub(crate) mod emulate;
pub(crate) mod fio;
pub(crate) mod fleet;
pub(crate) mod import;
pub(crate) mod kernel;
pub(crate) mod list;
pub(crate) mod mount;
mod option_range;
pub(crate) mod report;
pub(crate) mod repro;
pub(crate) mod run;
pub(crate) mod sim;
pub(crate) mod validate;
pub(crate) mod versus;
