//! How a run ends, as the CLI's exit status: one code per kind of outcome,
//! the same in every subcommand (`sluice --help` lists them).

/// Exit status of a refusal: a permission or kernel feature is missing, the
/// target is not what was asked (not a block device, a device another run
/// holds, a name that exists), or writing would destroy data that
/// `--allow-writes` did not give away. Nothing was changed.
pub const EXIT_REFUSED: u8 = 2;

/// Exit status when `--verify` read back blocks that were not the last
/// data written to them (lost, misplaced or torn writes).
pub const EXIT_DATA_ERROR: u8 = 3;

/// Exit status after Ctrl-C or SIGTERM (128 + SIGINT, the shell's convention).
pub const EXIT_INTERRUPTED: u8 = 130;

/// sluice refuses to go on; nothing was changed ([`EXIT_REFUSED`]).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Verification found blocks that do not hold what was last written
/// ([`EXIT_DATA_ERROR`]); the report was printed before this error.
#[derive(Debug)]
pub struct DataError {
    /// Blocks that were not the last stamp written.
    pub bad: u64,
    /// Blocks read back.
    pub verified: u64,
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} blocks read back do not hold the data last written to them \
             (lost, misplaced or torn writes)",
            self.bad, self.verified
        )
    }
}

impl std::error::Error for DataError {}
