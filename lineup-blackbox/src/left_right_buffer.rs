//! [`left-right`](https://crates.io/crates/left-right) 0.11.8, switched to loom by `--cfg loom`
//! alone (its loom dependency is unconditional under `cfg(loom)`, which replaces its atomics,
//! `Arc`, `Mutex` and the writer's wait for readers, a `yield_now` loop): a double buffer with
//! one writer and wait-free readers, the core of `evmap`.
//!
//! The data is a `Vec<u32>`; the operation log holds pushes. The writer's `push(x)` only appends
//! to the log: readers do not see it until `publish()`, which swaps the two copies, waits until
//! no reader is still inside the old one, and applies the log to it. So as a sequential object:
//! a published vector, a list of pending pushes, `publish` moves them over, `read` returns the
//! published vector and `pending` whether the list is not empty.
//!
//! The `WriteHandle` needs `&mut` and is not `Sync`: the object keeps it in a
//! `lineup::sync::Mutex` (writers are serialized, as left-right requires; matrices may put writer
//! operations in several columns). Each thread owns its own `ReadHandle`, as readers do (a
//! `ReadHandle` is `Send` but not `Sync`): its per-thread handle ([`Subject::with_handles`]), made
//! from the object's `ReadHandleFactory` when the thread starts (which registers the reader with
//! the writer), and dropped after the thread's last operation, in its `drop(handle)` operation
//! (which deregisters it). A
//! `read` enters, copies the vector and leaves in one operation.

use std::sync::Arc;

use left_right::{Absorb, ReadHandle, ReadHandleFactory, WriteHandle};
use lineup::sync::Mutex;
use lineup::{Invocation, MatrixThread, Subject};

/// The data of the double buffer: a vector that the operation log pushes onto.
#[derive(Clone, Debug, Default)]
pub struct Pushes(Vec<u32>);

impl Absorb<u32> for Pushes {
    fn absorb_first(&mut self, operation: &mut u32, _other: &Self) {
        self.0.push(*operation);
    }

    fn sync_with(&mut self, first: &Self) {
        self.0.clone_from(&first.0);
    }
}

/// A left-right double buffer of [`Pushes`]: the writer behind a mutex, and the factory of the
/// read handles that the threads own ([`Reader`]).
pub struct Buffer {
    writer: Mutex<WriteHandle<Pushes, u32>>,
    factory: ReadHandleFactory<Pushes>,
}

/// One thread's read handle: its handle for the whole execution.
pub type Reader = ReadHandle<Pushes>;

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left_right::WriteHandle<Pushes, u32>")
    }
}

impl Default for Buffer {
    fn default() -> Self {
        let (writer, reader) = left_right::new::<Pushes, u32>();
        Self {
            writer: Mutex::new(writer),
            factory: reader.factory(),
        }
    }
}

impl Buffer {
    /// `writer.append(x)`: a pending push, invisible to readers until [`publish`](Self::publish).
    pub fn push(&self, x: u32) {
        self.writer.lock().unwrap().append(x);
    }

    /// `writer.publish()`: readers see every push appended before.
    pub fn publish(&self) {
        self.writer.lock().unwrap().publish();
    }

    /// `writer.has_pending_operations()`.
    pub fn pending(&self) -> bool {
        self.writer.lock().unwrap().has_pending_operations()
    }

    /// The read handle of a thread that starts: `factory.handle()`, which registers a new
    /// reader with the writer (every thread gets one, whether it reads or not).
    pub fn reader(buffer: &Arc<Self>, _thread: &MatrixThread) -> Reader {
        buffer.factory.handle()
    }

    /// `reader.enter()` on the calling thread's read handle, the vector copied out:
    /// `Some(published pushes)` (`None` would mean that the writer is gone, which it never is
    /// here).
    pub fn read(&self, reader: &mut Reader) -> Option<Vec<u32>> {
        reader.enter().map(|guard| guard.0.clone())
    }

    /// A deliberately wrong operation, to show that the harness is not vacuous: two reads
    /// (two `enter`s) reported as one, returning both. Serially both see the same vector; a
    /// `publish` of another thread between them makes them differ: lineup must reject it.
    pub fn read_twice(&self, reader: &mut Reader) -> (Option<Vec<u32>>, Option<Vec<u32>>) {
        let first = reader.enter().map(|guard| guard.0.clone());
        let second = reader.enter().map(|guard| guard.0.clone());
        (first, second)
    }
}

/// Positions of the invocations of [`buffer`] and [`non_atomic_read_twice`].
pub mod op {
    /// `push(1)`: `()`.
    pub const PUSH_1: usize = 0;
    /// `push(2)`: `()`.
    pub const PUSH_2: usize = 1;
    /// `publish()`: `()`.
    pub const PUBLISH: usize = 2;
    /// `read()`: `Some([..])`, the published pushes.
    pub const READ: usize = 3;
    /// `pending()`: whether pushes wait for a publish.
    pub const PENDING: usize = 4;
    /// `read_twice()` (only in [`non_atomic_read_twice`](super::non_atomic_read_twice)).
    pub const READ_TWICE: usize = 5;
}

fn named(name: &str) -> Subject<Buffer> {
    Subject::new(name, Buffer::default)
        .with_handles(Buffer::reader)
        .with(Invocation::new("push", |b: &Buffer| b.push(1)).arg(1))
        .with(Invocation::new("push", |b: &Buffer| b.push(2)).arg(2))
        .with(Invocation::new("publish", Buffer::publish))
        .with(Invocation::on_handle("read", Buffer::read))
        .with(Invocation::new("pending", Buffer::pending))
}

/// The double buffer with `push(1)`, `push(2)`, `publish`, `read` and `pending` (see [`op`]).
pub fn buffer() -> Subject<Buffer> {
    named("left-right 0.11.8")
}

/// [`buffer`] plus the deliberately wrong `read_twice` (see [`Buffer::read_twice`]): lineup must
/// reject it.
pub fn non_atomic_read_twice() -> Subject<Buffer> {
    named("left-right 0.11.8 with a non-atomic read_twice")
        .with(Invocation::on_handle("read_twice", Buffer::read_twice))
}
