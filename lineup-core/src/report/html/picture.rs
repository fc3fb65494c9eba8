//! The neutral model of an HTML report: sections of timelines (one lane per thread or client,
//! one bar per operation from its call to its return), with marks and hover details. Filled by
//! lineup-core from a [`Violation`](crate::Violation) and by lineup-histories from a failing
//! check; drawn by [`Picture::to_html`].

/// A whole report page: a title and its sections.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picture {
    /// The page title (also the first heading).
    pub title: String,
    /// One line under the title (what was checked), may be empty.
    pub summary: String,
    /// The sections, in order.
    pub sections: Vec<Section>,
}

/// One part of a report: a failing check (a violation, a failing partition of a history).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Section {
    /// The heading.
    pub heading: String,
    /// Named values shown as a table above the timelines (kind, replay token, state, ...).
    pub facts: Vec<Fact>,
    /// Paragraphs of explanation, shown as text.
    pub notes: Vec<String>,
    /// The timelines, drawn side by side (two serial histories) or one under the other when
    /// the page is narrow.
    pub timelines: Vec<Timeline>,
    /// Steps of a sequence with a state before and after each (the linearized prefix), shown
    /// as a table under the timelines.
    pub steps: Vec<Step>,
    /// The steps of the violating execution in the order they took effect, each with its thread
    /// (`A`, ...) and what happened (a call, a step with its location, a switch, a return, the
    /// object's state): the text report's "interleaving" section in full. Empty when not recorded.
    pub interleaving: Vec<(String, String)>,
    /// The same steps drawn on the threads' lanes: each operation a bar from its call to its
    /// return that expands (on a click) into its steps, each step's source location on hover, and
    /// the switches drawn between lanes. `None` when not recorded.
    pub step_timeline: Option<StepTimeline>,
}

/// The steps of an execution drawn on lanes (one per thread, as the timelines): every call,
/// step, switch and return takes the next position of the axis, in the order they happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepTimeline {
    /// The lanes' names, top to bottom.
    pub lanes: Vec<String>,
    /// How many positions the axis has.
    pub positions: usize,
    /// The operations, each a bar from its call to its return.
    pub ops: Vec<StepOp>,
    /// The steps, each a mark on its thread's lane.
    pub steps: Vec<StepMark>,
    /// The switches from one thread to another, each an arrow between their lanes.
    pub switches: Vec<SwitchMark>,
}

/// An operation of a [`StepTimeline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepOp {
    /// The lane (index into [`StepTimeline::lanes`]).
    pub lane: usize,
    /// Its identifier (the operation's number), which its steps name too.
    pub id: String,
    /// The position of its call.
    pub call: usize,
    /// The position of its return; `None`: it never returned.
    pub ret: Option<usize>,
    /// What was called and what it returned.
    pub label: String,
}

/// A step of a [`StepTimeline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepMark {
    /// The lane.
    pub lane: usize,
    /// Its position.
    pub at: usize,
    /// The operation it belongs to ([`StepOp::id`]), if any.
    pub op: Option<String>,
    /// What it did, on which object.
    pub text: String,
    /// Where the user's code called it (`file:line:column`), if known.
    pub location: Option<String>,
}

/// A switch of a [`StepTimeline`]: the thread of lane `from` stopped running, and the thread of
/// lane `to` (if any could) ran next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchMark {
    /// Its position.
    pub at: usize,
    /// The lane of the thread that stopped.
    pub from: usize,
    /// The lane of the thread that ran next, if one did.
    pub to: Option<usize>,
    /// Why (`preempted`, `yielded`, `blocked`, ...).
    pub reason: String,
}

/// A named value of a [`Section`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fact {
    /// The name, e.g. `replay`.
    pub name: String,
    /// The value, shown in a fixed-width font.
    pub value: String,
    /// A class name (`[a-z-]` only) for the value's cell, so that tests and styles can find
    /// it, e.g. `replay-token`.
    pub class: Option<&'static str>,
}

impl Fact {
    /// A fact without a class.
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Fact {
            name: name.into(),
            value: value.into(),
            class: None,
        }
    }

    /// A fact whose value cell has the class `class`.
    pub fn with_class(name: impl Into<String>, value: impl Into<String>, class: &'static str) -> Self {
        Fact {
            name: name.into(),
            value: value.into(),
            class: Some(class),
        }
    }
}

/// A timeline: lanes (threads, clients) and bars (operations) on a common time axis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// The caption above it.
    pub caption: String,
    /// The lanes' names, top to bottom.
    pub lanes: Vec<String>,
    /// The operations.
    pub bars: Vec<Bar>,
}

/// One operation drawn as a bar from its call to its return.
///
/// Only the order of times matters: the writer places the distinct call and return times at
/// equal distances.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bar {
    /// The lane (index into [`Timeline::lanes`]).
    pub lane: usize,
    /// A short identifier shown in the bar's details (e.g. `op#3`, `2`).
    pub id: String,
    /// The call time.
    pub call: u64,
    /// The return time; `None` draws the bar open-ended (unknown outcome, pending, stuck).
    pub ret: Option<u64>,
    /// What was called, e.g. `add(200)`.
    pub label: String,
    /// What it returned, if it returned (or `?` for an unknown outcome).
    pub result: Option<String>,
    /// Its role, which gives its colour.
    pub mark: BarMark,
    /// Named values shown on hover (state before and after, the file line, ...).
    pub details: Vec<(String, String)>,
}

/// The role of a bar, which gives its colour and its `data-mark` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarMark {
    /// An operation of the history, nothing more to say.
    Plain,
    /// Placed at this position (from 0) of the longest linearizable prefix.
    Linearized(usize),
    /// The operation that cannot be placed next (its return was reached while it was unplaced;
    /// for a serial pair, the operation whose outcome differs).
    Blocking,
    /// Another candidate that could not be placed either.
    Unplaced,
    /// A pending operation that never returns although a serial execution would not block
    /// there (Def. 2).
    Stuck,
    /// The operation whose outcome differs between two serial histories with the same past
    /// (nondeterminism, phase 1).
    Differs,
    /// Shown for context only.
    Context,
}

impl BarMark {
    /// The name used in the page (`data-mark`, CSS classes).
    pub fn name(self) -> &'static str {
        match self {
            BarMark::Plain => "plain",
            BarMark::Linearized(_) => "linearized",
            BarMark::Blocking => "blocking",
            BarMark::Unplaced => "unplaced",
            BarMark::Stuck => "stuck",
            BarMark::Differs => "differs",
            BarMark::Context => "context",
        }
    }

    /// Whether the bar is highlighted as the failure.
    pub fn is_failure(self) -> bool {
        matches!(self, BarMark::Blocking | BarMark::Stuck | BarMark::Differs)
    }
}

/// One step of a sequence, with the model's state before and after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The position in the sequence (from 0).
    pub position: usize,
    /// The operation (its id and description).
    pub operation: String,
    /// The state before it.
    pub before: String,
    /// The state after it.
    pub after: String,
}
