//! Phase 1 of one trivial operation on an object with `n` idle agents (threads blocked
//! on their mailboxes), with and without `Config::reduction`.
use lineup::sync::mpsc::{channel, Sender};
use lineup::{synthesize_spec, Config, Invocation, Subject, TestMatrix};

struct Idle {
    _mailboxes: Vec<Sender<u32>>,
    echo: Sender<(u32, Sender<u32>)>,
}

fn build(n: usize) -> Idle {
    let mut mailboxes = Vec::new();
    for _ in 0..n {
        let (tx, rx) = channel::<u32>();
        lineup::thread::spawn(move || while rx.recv().is_ok() {});
        mailboxes.push(tx);
    }
    let (echo, requests) = channel::<(u32, Sender<u32>)>();
    lineup::thread::spawn(move || {
        while let Ok((v, reply)) = requests.recv() {
            let _ = reply.send(v);
        }
    });
    Idle {
        _mailboxes: mailboxes,
        echo,
    }
}

fn main() {
    for n in 0..3 {
        for reduction in [false, true] {
            let subject = Subject::new("Idle", move || build(n)).with(Invocation::new("echo", |o: &Idle| {
                let (tx, rx) = channel();
                o.echo.send((1, tx)).unwrap();
                rx.recv().unwrap()
            }));
            let config = Config {
                workers: 1,
                reduction: reduction.into(),
                ..Config::default()
            };
            let s = synthesize_spec(&subject, &TestMatrix::new(vec![vec![0]]), &config).unwrap();
            println!("idle={n} reduction={reduction} serial_executions={}", s.executions);
        }
    }
}
