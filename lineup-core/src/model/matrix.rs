//! Test matrices: which invocations each thread performs (paper §3.1 and §4.3).

use std::fmt;

use crate::model::invocation::InvocationLabel;
use crate::model::thread_id::ThreadId;

/// A finite test: `n` threads, each with a sequence of invocations, plus optional initial and
/// final sequences that the main thread runs before the threads start and after they are joined.
///
/// Entries are indices into the invocation list of the [`Subject`](crate::Subject) under test.
/// Operations are numbered from 1 in a fixed order: the initial sequence, then each thread's
/// column in turn, then the final sequence. Every history of the matrix uses these numbers.
///
/// ```
/// use lineup_core::TestMatrix;
/// // Thread A: invocations 0 then 2; thread B: invocations 1 then 2.
/// let m = TestMatrix::new(vec![vec![0, 2], vec![1, 2]]).with_final(vec![2]);
/// assert_eq!(m.op_count(), 5);
/// assert_eq!(m.dimensions(), (2, 2));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TestMatrix {
    /// Run by the main thread before the worker threads are spawned.
    pub initial: Vec<usize>,
    /// `threads[i]` is the column of worker thread `i`.
    pub threads: Vec<Vec<usize>>,
    /// Run by the main thread after every worker thread has finished.
    pub finals: Vec<usize>,
}

/// One operation slot of a matrix: its number, its thread and its invocation index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpSlot {
    /// The operation's number (from 1).
    pub id: usize,
    /// The thread that performs it.
    pub thread: ThreadId,
    /// Index into the subject's invocation list.
    pub invocation: usize,
}

impl TestMatrix {
    /// A matrix with the given thread columns and no initial or final operations.
    pub fn new(threads: Vec<Vec<usize>>) -> Self {
        Self {
            initial: Vec::new(),
            threads,
            finals: Vec::new(),
        }
    }

    /// Sets the initial sequence run by the main thread before the threads start.
    pub fn with_initial(mut self, initial: Vec<usize>) -> Self {
        self.initial = initial;
        self
    }

    /// Sets the final sequence run by the main thread after the threads are joined.
    pub fn with_final(mut self, finals: Vec<usize>) -> Self {
        self.finals = finals;
        self
    }

    /// Total number of operations, initial and final ones included.
    pub fn op_count(&self) -> usize {
        self.initial.len() + self.threads.iter().map(Vec::len).sum::<usize>() + self.finals.len()
    }

    /// `(threads, longest column)`.
    pub fn dimensions(&self) -> (usize, usize) {
        (self.threads.len(), self.threads.iter().map(Vec::len).max().unwrap_or(0))
    }

    /// Every operation slot in numbering order.
    pub fn slots(&self) -> Vec<OpSlot> {
        let mut slots = Vec::with_capacity(self.op_count());
        let mut push = |thread, invocation| {
            slots.push(OpSlot {
                id: slots.len() + 1,
                thread,
                invocation,
            });
        };
        self.initial.iter().for_each(|&i| push(ThreadId::Main, i));
        for (t, column) in self.threads.iter().enumerate() {
            column.iter().for_each(|&i| push(ThreadId::Worker(t), i));
        }
        self.finals.iter().for_each(|&i| push(ThreadId::Main, i));
        slots
    }

    /// The largest invocation index used, if any.
    pub fn max_invocation(&self) -> Option<usize> {
        self.initial
            .iter()
            .chain(self.threads.iter().flatten())
            .chain(&self.finals)
            .copied()
            .max()
    }

    /// Renders the matrix with invocation labels, one thread per line, e.g.
    /// `A: add(200) try_take()`.
    pub fn display<'a>(&'a self, labels: &'a [InvocationLabel]) -> MatrixDisplay<'a> {
        MatrixDisplay { matrix: self, labels }
    }
}

/// Renders a [`TestMatrix`] with its invocation labels (see [`TestMatrix::display`]).
#[derive(Debug)]
pub struct MatrixDisplay<'a> {
    matrix: &'a TestMatrix,
    labels: &'a [InvocationLabel],
}

impl fmt::Display for MatrixDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = |i: usize| self.labels.get(i).map_or_else(|| format!("#{i}?"), |l| l.to_string());
        let line = |f: &mut fmt::Formatter<'_>, name: &str, ops: &[usize]| {
            let ops: Vec<String> = ops.iter().map(|&i| label(i)).collect();
            writeln!(f, "  {name:<8} {}", ops.join("  "))
        };
        if !self.matrix.initial.is_empty() {
            line(f, "initial:", &self.matrix.initial)?;
        }
        for (t, column) in self.matrix.threads.iter().enumerate() {
            line(f, &format!("{}:", ThreadId::Worker(t)), column)?;
        }
        if !self.matrix.finals.is_empty() {
            line(f, "final:", &self.matrix.finals)?;
        }
        Ok(())
    }
}
