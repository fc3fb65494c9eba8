//! A register actor with a read cache in front of it: `swap(v)` sends the new value to the actor
//! and returns the old one, `read()` answers from the cache, or asks the actor on a miss and
//! keeps the answer.
//!
//! The register is a task owning the value, receiving requests over a `tokio::sync::mpsc`
//! channel and replying over `oneshot` channels. The cache is a `tokio::sync::Mutex` in the
//! client's handle. With [`Invalidation::WhileLocked`] a `swap` holds the cache's lock until the
//! actor replied and then caches the new value, and a `read` holds it across its miss:
//! linearizable. With [`Invalidation::Early`] a `swap` empties the cache and releases it before it
//! sends: a `read` that misses in between asks the actor before the swap reaches it and caches the
//! old value, and every later read answers from that stale copy, although the swap has returned
//! (`swap(1) | read() -> 0`, then `read() -> 0`). One operation at a time (every serial
//! execution) never shows it.

use tokio::sync::{mpsc, oneshot, Mutex};

/// When a `swap` invalidates the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalidation {
    /// The swap holds the cache's lock until the actor replied, then caches the new value.
    WhileLocked,
    /// The swap empties the cache before it sends, without holding the lock: stale reads.
    Early,
}

/// A request to the register actor.
enum Request {
    Read(oneshot::Sender<u32>),
    Swap(u32, oneshot::Sender<u32>),
}

/// The client's handle: the actor's mailbox and the read cache.
pub struct CachedRegister {
    invalidation: Invalidation,
    actor: mpsc::Sender<Request>,
    cache: Mutex<Option<u32>>,
}

impl CachedRegister {
    /// Spawns the register actor (on the current runtime: shuttle's under the `shuttle` feature,
    /// a tokio runtime otherwise). The register holds 0; the cache is empty.
    pub fn new(invalidation: Invalidation) -> Self {
        let (actor, mailbox) = mpsc::channel(8);
        tokio::spawn(register(mailbox));
        Self {
            invalidation,
            actor,
            cache: Mutex::new(None),
        }
    }

    /// Writes `value` and returns the value it replaced.
    pub async fn swap(&self, value: u32) -> u32 {
        match self.invalidation {
            Invalidation::WhileLocked => {
                let mut cache = self.cache.lock().await;
                let old = self.ask(|reply| Request::Swap(value, reply)).await;
                *cache = Some(value);
                old
            }
            Invalidation::Early => {
                *self.cache.lock().await = None;
                self.ask(|reply| Request::Swap(value, reply)).await
            }
        }
    }

    /// The value: the cached one, or the actor's (then cached).
    pub async fn read(&self) -> u32 {
        let mut cache = self.cache.lock().await;
        if let Some(value) = *cache {
            return value;
        }
        let value = self.ask(Request::Read).await;
        *cache = Some(value);
        value
    }

    /// Sends a request with a fresh reply channel and awaits the reply.
    async fn ask(&self, request: impl FnOnce(oneshot::Sender<u32>) -> Request) -> u32 {
        let (reply, answer) = oneshot::channel();
        self.actor.send(request(reply)).await.expect("the register actor runs");
        answer.await.expect("the register actor replies")
    }
}

/// The register actor: owns the value; ends when every handle is gone.
async fn register(mut mailbox: mpsc::Receiver<Request>) {
    let mut value = 0;
    while let Some(request) = mailbox.recv().await {
        match request {
            Request::Read(reply) => {
                let _ = reply.send(value);
            }
            Request::Swap(new, reply) => {
                let _ = reply.send(std::mem::replace(&mut value, new));
            }
        }
    }
}
