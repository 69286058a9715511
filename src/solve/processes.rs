//! Where a solve's unknowns live: on this process alone, or in blocks over the processes of a
//! distributed grid ([`DistOperator`](super::DistOperator)), whose dot products are sums over
//! every process and whose decisions (converged, broke down) must be the same on all of them.

use crate::error::Result;

/// The processes that share a solve's unknowns (none for a one-process solve). A distributed
/// solve keeps its collectives in step: a process whose local work fails does not return at
/// once (the others would wait for it in their next collective) but defers the error, which the
/// next [`sum`](Processes::sum) then returns on every process.
pub(crate) trait Processes: Send + Sync {
    /// Keeps `local`'s error, the first one, for the next [`sum`](Processes::sum) or
    /// [`settle`](Processes::settle).
    fn defer(&self, local: Result<()>);

    /// The sum over every process of its `local` value, the same bits on every process (added
    /// in rank order); the same error on every process when any process failed (`local` or a
    /// deferred error). Collective.
    ///
    /// # Errors
    ///
    /// The failing process's error (an `Error::Mpi` naming it on the others).
    fn sum(&self, op: &'static str, local: Result<f64>) -> Result<f64>;

    /// `Ok` on every process when no process has a deferred error, else the same error on
    /// every process. Collective.
    ///
    /// # Errors
    ///
    /// As [`Processes::sum`].
    fn settle(&self, op: &'static str) -> Result<()>;
}

/// `local` where it is `Ok` on every process, else the same error on every process: for the
/// steps whose result the next steps need at once (an allocation). Collective.
///
/// # Errors
///
/// As [`Processes::settle`].
pub(crate) fn agreed<R>(processes: &dyn Processes, op: &'static str, local: Result<R>) -> Result<R> {
    let (value, outcome) = match local {
        Ok(value) => (Some(value), Ok(())),
        Err(error) => (None, Err(error)),
    };
    processes.defer(outcome);
    processes.settle(op)?;
    Ok(value.expect("a deferred error fails the settlement"))
}
