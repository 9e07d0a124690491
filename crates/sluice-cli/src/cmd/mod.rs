//! One module per subcommand: its clap arguments (help texts included)
//! and the `run` that carries them out, so `main` is only parsing and
//! dispatch.

pub mod compare;
pub mod emulate;
pub mod fio;
pub mod kernel;
pub mod list;
pub mod report;
pub mod repro;
pub mod run;
pub mod sim;
pub mod validate;
pub mod versus;
