//! The README's "Objects with handles" example, compiled and run: the code between the two
//! markers below is the README's code block, word for word (the last test checks it).

// README: begin
use lineup::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use lineup::sync::Mutex;
use lineup::{invocations, lineup_test, MatrixThread};

/// A channel with one receiver: every thread sends through its own `Sender`, and the one thread
/// that runs the `receiver` group owns the `Receiver`.
struct Mailbox {
    sender: Sender<u32>,
    receiver: Mutex<Option<Receiver<u32>>>,
}

/// What one thread owns: its sender, and the receiver if it is the receiving thread.
struct End {
    sender: Sender<u32>,
    receiver: Option<Receiver<u32>>,
}

#[invocations]
impl Mailbox {
    /// Each thread's handle, made when it starts and dropped after its last operation.
    #[handles]
    fn end(&self, thread: &MatrixThread) -> End {
        let receiver = match thread.runs_group("receiver") {
            true => self.receiver.lock().unwrap().take(),
            false => None,
        };
        End {
            sender: self.sender.clone(),
            receiver,
        }
    }

    #[invoke(1, 2)] // send(1), send(2), on the calling thread's own sender
    fn send(&self, end: &mut End, value: u32) -> bool {
        end.sender.send(value).is_ok()
    }

    #[invoke(group = "receiver")] // try_recv(), always on one thread of a matrix
    fn try_recv(&self, end: &mut End) -> Result<u32, TryRecvError> {
        end.receiver
            .as_ref()
            .expect("the receiving thread has the receiver")
            .try_recv()
    }
}

#[lineup_test(threads = 2, ops = 2, time_budget = "3s")]
fn mailbox_is_linearizable() -> Mailbox {
    let (sender, receiver) = channel();
    Mailbox {
        sender,
        receiver: Mutex::new(Some(receiver)),
    }
}
// README: end

#[test]
fn the_readme_shows_this_example() {
    let source = include_str!("readme_handles.rs");
    let begin = source.find("// README: begin\n").unwrap() + "// README: begin\n".len();
    let end = source.find("// README: end").unwrap();
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&source[begin..end]),
        "README.md's \"Objects with handles\" block must be tests/readme_handles.rs's, word for word"
    );
}
