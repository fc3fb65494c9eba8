//! Depth-first enumeration of scheduling decisions for a stateless model checker.
//!
//! Every execution replays the decisions of the path to its last branch point and then takes
//! the first option at every new branch point. After the execution, [`DecisionTree::advance`]
//! moves to the next untried option of the deepest branch point that has one. Only decisions
//! with more than one option are recorded, so the path is also a compact replay token.
//!
//! A tree can also be a *subtree*: the executions below a fixed prefix of choices
//! ([`DecisionTree::subtree`]). A tree hands the untried options of its shallowest branch point to
//! other workers as subtrees ([`DecisionTree::donate`]), and explores only the options it kept,
//! so that one tree is explored by several workers, each leaf exactly once (see
//! [`split`](crate::explore::split)).
//!
//! With the partial-order reduction, a branch point also keeps the options explored there (their
//! thread and footprint, [`SleepRecord`]) for the sleep sets of later siblings, and never explores
//! an option whose thread was asleep when the point was met (see
//! [`sleep`](crate::explore::sleep)). An explored option whose step covers its later siblings
//! ([`covers_siblings`](crate::explore::sleep::covers_siblings)) ends its branch point once its
//! subtree is complete. Options keep their numbers, so a reduced execution's replay token replays
//! without any sleep set.

use crate::explore::sleep::SleepRecord;

/// One branch point on the current path.
#[derive(Clone, Debug)]
struct Branch {
    /// How many options there were (`0`: unknown, when replaying a token).
    options: u32,
    chosen: u32,
    /// The options this tree explores end before this one (the rest were donated, or lie outside
    /// a subtree's fixed prefix).
    end: u32,
    /// The options (below 64) whose thread was asleep when the point was first met: never
    /// explored (see [`sleep`](crate::explore::sleep)).
    asleep: u64,
    /// The options explored here so far, for the sleep sets of later siblings.
    records: Vec<SleepRecord>,
    /// The subtree of the option explored now gave way with a choice of fair thread, or switched
    /// for fairness: its record may not sleep in later siblings.
    tainted: bool,
    /// The subtree of the option explored now gave way at all (a yield or a fair switch, with any
    /// number of candidates), had two threads receive from one channel, or had a step of another
    /// thread conflict with the option's before the history was complete: its record may not
    /// cover later siblings (see [`covers_siblings`](crate::explore::sleep::covers_siblings)).
    covers_nothing: bool,
    /// The options of this branch point are explored by several trees (later siblings were handed
    /// out here, or this is the last branch point of a subtree's prefix, or above it): the
    /// options completed here are published, and those completed by other trees are learned (see
    /// [`Completion`]).
    shared: bool,
    /// A subtree below the option explored now was handed out: this tree alone does not complete
    /// it, so its record is not published.
    split_below: bool,
}

impl Branch {
    fn new(options: u32, chosen: u32, end: u32) -> Self {
        Self {
            options,
            chosen,
            end,
            asleep: 0,
            records: Vec::new(),
            tainted: false,
            covers_nothing: false,
            shared: false,
            split_below: false,
        }
    }

    fn is_asleep(&self, option: u32) -> bool {
        option < 64 && self.asleep & (1 << option) != 0
    }

    /// The first option from `from` on that this tree explores and that is awake.
    fn next_awake(&self, from: u32) -> Option<u32> {
        (from..self.end).find(|&k| !self.is_asleep(k))
    }
}

/// A subtree of a decision tree: the executions whose choices begin with `prefix`. Each entry is
/// `(options, chosen)` of one branch point. Subtrees are ordered as depth-first search meets them
/// (lexicographically on their choices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Subtree {
    /// The choices of the prefix, the order key.
    pub choices: Vec<u32>,
    /// The number of options at each branch point of the prefix.
    pub options: Vec<u32>,
    /// At each branch point of the prefix, the options explored before the chosen one whose
    /// subtrees are complete (for the sleep sets below the prefix).
    pub records: Vec<Vec<SleepRecord>>,
    /// The branch points of the prefix whose options are explored by several trees (see
    /// [`Completion`]), by index.
    pub shared: Vec<usize>,
}

/// An option of a shared branch point whose subtree one tree explored completely (the tree did not
/// hand out any part of it): what the trees that explore its later siblings learn from it, as a
/// single tree would have known it when it moved on to them. Its record may sleep in those
/// siblings (if eligible), and if it covers its later siblings, their subtrees need not be
/// explored at all (see [`DecisionTree::learn`]).
#[derive(Clone, Debug)]
pub(crate) struct Completion {
    /// The choices before the branch point.
    pub key: Vec<u32>,
    /// The option's record, its eligibility final.
    pub record: SleepRecord,
    /// It ends its branch point: every later sibling is covered by its subtree.
    pub covered: bool,
}

impl PartialOrd for Subtree {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Subtree {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.choices, &self.options).cmp(&(&other.choices, &other.options))
    }
}

/// The schedule took a different shape on replay than when it was first explored: the code
/// under test does something the model checker does not control (time, OS randomness, `std`
/// synchronization, global state kept across executions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Divergence {
    pub depth: usize,
    pub expected_options: u32,
    pub found_options: u32,
    /// The choices came from a replay token that does not fit the execution (a choice out of
    /// range, or more choices than branch points), rather than from an earlier execution.
    pub from_token: bool,
}

/// The tree of scheduling decisions explored so far (its current path).
#[derive(Clone, Debug, Default)]
pub(crate) struct DecisionTree {
    path: Vec<Branch>,
    depth: usize,
    /// Replaying a fixed token: never branch beyond it.
    replay: bool,
    /// The branch points before this depth are a subtree's fixed prefix.
    floor: usize,
    /// Options of shared branch points completed since [`take_completions`](Self::take_completions).
    completions: Vec<Completion>,
}

impl DecisionTree {
    /// A tree that explores every schedule.
    pub fn new() -> Self {
        Self::default()
    }

    /// A tree that follows `choices` once (a replay token).
    pub fn replaying(choices: &[u32]) -> Self {
        Self {
            path: choices
                .iter()
                .map(|&chosen| Branch::new(0, chosen, chosen + 1))
                .collect(),
            depth: 0,
            replay: true,
            floor: choices.len(),
            completions: Vec::new(),
        }
    }

    /// A tree that explores every execution below `subtree`'s prefix, and nothing else.
    pub fn subtree(subtree: &Subtree) -> Self {
        let path: Vec<Branch> = subtree
            .choices
            .iter()
            .zip(&subtree.options)
            .enumerate()
            .map(|(i, (&chosen, &options))| {
                let mut branch = Branch::new(options, chosen, chosen + 1);
                branch.records = subtree.records.get(i).cloned().unwrap_or_default();
                branch.shared = subtree.shared.contains(&i);
                branch
            })
            .collect();
        Self {
            floor: path.len(),
            path,
            depth: 0,
            replay: false,
            completions: Vec::new(),
        }
    }

    /// Hands the options not tried yet at the shallowest branch point that has any (below the
    /// fixed prefix) to the caller, as subtrees in depth-first order, and leaves them out of this
    /// tree's own exploration. Empty when there is nothing to hand out (or when replaying).
    pub fn donate(&mut self) -> Vec<Subtree> {
        if self.replay {
            return Vec::new();
        }
        let Some(i) =
            (self.floor..self.path.len()).find(|&i| self.path[i].next_awake(self.path[i].chosen + 1).is_some())
        else {
            return Vec::new();
        };
        let prefix = &self.path[..i];
        let branch = &self.path[i];
        // The records of the options whose subtrees are complete (the chosen one's is not).
        let complete =
            |b: &Branch| -> Vec<SleepRecord> { b.records.iter().filter(|r| r.option < b.chosen).cloned().collect() };
        let records: Vec<Vec<SleepRecord>> = prefix.iter().map(complete).chain([complete(branch)]).collect();
        let shared: Vec<usize> = (0..i).filter(|&j| prefix[j].shared).chain([i]).collect();
        let donated = (branch.chosen + 1..branch.end)
            .filter(|&k| !branch.is_asleep(k))
            .map(|k| Subtree {
                choices: prefix.iter().map(|b| b.chosen).chain([k]).collect(),
                options: prefix.iter().map(|b| b.options).chain([branch.options]).collect(),
                records: records.clone(),
                shared: shared.clone(),
            })
            .collect();
        self.path[i].end = self.path[i].chosen + 1;
        self.path[i].shared = true;
        for above in &mut self.path[..i] {
            above.split_below = true;
        }
        donated
    }

    /// The choices of the path that the next execution follows to its last recorded branch point
    /// (after [`advance`](Self::advance)): every execution left in this tree comes at or after it
    /// in depth-first order.
    pub fn position(&self) -> Vec<u32> {
        self.path.iter().map(|b| b.chosen).collect()
    }

    /// The fixed prefix of a subtree's choices (empty for a whole tree).
    pub fn prefix(&self) -> Vec<u32> {
        self.path[..self.floor.min(self.path.len())]
            .iter()
            .map(|b| b.chosen)
            .collect()
    }

    /// Whether this tree replays a fixed token.
    pub fn is_replay(&self) -> bool {
        self.replay
    }

    /// Picks one of `options` (> 1) at the next branch point of this execution.
    pub fn choose(&mut self, options: usize) -> Result<usize, Divergence> {
        self.choose_awake(options, 0)
    }

    /// Picks one of `options` (> 1) at the next branch point of this execution, where the options
    /// in the bit set `asleep` (below 64) are never explored; at least one option must be awake.
    pub fn choose_awake(&mut self, options: usize, asleep: u64) -> Result<usize, Divergence> {
        let options = options as u32;
        let chosen = match self.path.get_mut(self.depth) {
            Some(branch) if branch.options == 0 => {
                branch.options = options;
                if branch.chosen >= options {
                    return Err(Divergence {
                        depth: self.depth,
                        expected_options: branch.chosen + 1,
                        found_options: options,
                        from_token: true,
                    });
                }
                branch.chosen
            }
            Some(branch) if branch.options != options => {
                return Err(Divergence {
                    depth: self.depth,
                    expected_options: branch.options,
                    found_options: options,
                    from_token: false,
                });
            }
            Some(branch) => branch.chosen,
            None => {
                // Beyond a replay token the first option is taken, as it was when it was explored.
                if self.replay {
                    0
                } else {
                    let mut branch = Branch::new(options, 0, options);
                    branch.asleep = asleep;
                    let first = branch.next_awake(0).unwrap_or(0);
                    branch.chosen = first;
                    self.path.push(branch);
                    first
                }
            }
        };
        self.depth += 1;
        Ok(chosen as usize)
    }

    /// After a replayed execution: the replay token's choices that it did not use, if any (a
    /// token of another schedule or matrix).
    pub fn unused_replay_choices(&self) -> Option<Divergence> {
        (self.replay && self.depth < self.path.len()).then_some(Divergence {
            depth: self.depth,
            expected_options: 0,
            found_options: 0,
            from_token: true,
        })
    }

    /// Moves to the next unexplored path; `false` when every path has been explored.
    pub fn advance(&mut self) -> bool {
        self.depth = 0;
        if self.replay {
            return false;
        }
        while self.path.len() > self.floor {
            let covered = self.complete_last();
            let branch = self.path.last_mut().expect("longer than the floor");
            if let Some(next) = branch.next_awake(branch.chosen + 1).filter(|_| !covered) {
                branch.chosen = next;
                branch.split_below = false;
                return true;
            }
            self.path.pop();
        }
        // A subtree is exhausted: the option its prefix ends with is complete too.
        if self.floor > 0 && self.path.len() == self.floor {
            self.complete_last();
        }
        false
    }

    /// The option explored at the last branch point of the path is complete: whether its record
    /// may sleep is final. Publishes it if the branch point is shared (see [`Completion`]), and
    /// says whether it covers its later siblings (which ends the branch point).
    fn complete_last(&mut self) -> bool {
        let depth = self.path.len() - 1;
        let branch = self.path.last_mut().expect("a branch point");
        let (chosen, tainted) = (branch.chosen, std::mem::take(&mut branch.tainted));
        let covers_nothing = std::mem::take(&mut branch.covers_nothing);
        // An option that covers its later siblings ends the branch point.
        let mut covered = false;
        let publish = branch.shared && !branch.split_below;
        let mut completed = None;
        if let Some(record) = branch.records.iter_mut().find(|r| r.option == chosen) {
            record.eligible &= !tainted;
            covered = record.eligible && record.covers && !covers_nothing;
            // Cloned only to be published: a tree alone has nothing to tell.
            completed = publish.then(|| record.clone());
        }
        if let Some(record) = completed {
            let key = self.path[..depth].iter().map(|b| b.chosen).collect();
            self.completions.push(Completion { key, record, covered });
        }
        covered
    }

    /// The options of shared branch points completed since the last call (see [`Completion`]).
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    /// Learns what other trees published about the earlier siblings of this subtree's prefix
    /// (`published`: the completions of a branch point by the choices before it): their records
    /// sleep in the executions from now on, as in a single tree that explored them first. `false`
    /// when one of them covers its later siblings: every execution left in this tree is equivalent
    /// to one of its subtree, and none needs to run.
    pub fn learn<'a, F>(&mut self, published: F) -> bool
    where
        F: Fn(&[u32]) -> Option<&'a [Completion]>,
    {
        let floor = self.floor.min(self.path.len());
        let mut key = Vec::with_capacity(floor);
        for j in 0..floor {
            if self.path[j].shared {
                let chosen = self.path[j].chosen;
                for c in published(&key).unwrap_or_default() {
                    if c.record.option >= chosen {
                        continue;
                    }
                    if c.covered {
                        return false;
                    }
                    let records = &mut self.path[j].records;
                    if !records.iter().any(|r| r.option == c.record.option) {
                        records.push(c.record.clone());
                    }
                }
            }
            key.push(self.path[j].chosen);
        }
        true
    }

    /// The index of the branch point that the last [`choose`](Self::choose) in this execution
    /// met, given the depth before it (`None`: it met none).
    pub fn branch_index(&self, depth_before: usize) -> Option<usize> {
        (self.depth > depth_before).then_some(depth_before)
    }

    /// How many branch points this execution has met so far.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The option chosen at branch point `index` of the path.
    pub fn chosen_at(&self, index: usize) -> Option<u32> {
        self.path.get(index).map(|b| b.chosen)
    }

    /// Keeps `record`, the step of the option chosen at branch point `index`, unless one is kept
    /// already.
    pub fn keep_record(&mut self, index: usize, record: SleepRecord) {
        if let Some(branch) = self.path.get_mut(index) {
            if !branch.records.iter().any(|r| r.option == record.option) {
                branch.records.push(record);
            }
        }
    }

    /// The records at branch point `index` that sleep in the option chosen there: those of the
    /// options explored before it that may sleep.
    pub fn sleepers_at(&self, index: usize) -> impl Iterator<Item = &SleepRecord> {
        let branch = self.path.get(index);
        let chosen = branch.map_or(0, |b| b.chosen);
        branch
            .into_iter()
            .flat_map(|b| b.records.iter())
            .filter(move |r| r.option < chosen && r.eligible)
    }

    /// The execution in progress gave way with a choice of fair thread, or switched for fairness,
    /// after `depth` branch points: the options it took at those may not sleep in their later
    /// siblings.
    pub fn taint_path(&mut self, depth: usize) {
        let depth = depth.min(self.path.len());
        for branch in &mut self.path[..depth] {
            branch.tainted = true;
        }
    }

    /// The execution in progress gave way (with any number of candidates), or a second thread
    /// received from a channel, after `depth` branch points: the options it took at those may not
    /// cover their later siblings.
    pub fn mark_covers_nothing(&mut self, depth: usize) {
        let depth = depth.min(self.path.len());
        for branch in &mut self.path[..depth] {
            branch.covers_nothing = true;
        }
    }

    /// A step of another thread conflicted with the one chosen at branch point `index`: that
    /// option may not cover its later siblings.
    pub fn mark_covers_nothing_at(&mut self, index: usize) {
        if let Some(branch) = self.path.get_mut(index) {
            branch.covers_nothing = true;
        }
    }

    /// The choices made so far in this execution: its replay token.
    pub fn choices(&self) -> Vec<u32> {
        self.path[..self.depth.min(self.path.len())]
            .iter()
            .map(|b| b.chosen)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enumerates a fixed tree of shape [2, then 3 under option 0, nothing under option 1].
    #[test]
    fn enumerates_every_leaf_once() {
        let mut tree = DecisionTree::new();
        let mut leaves = vec![];
        loop {
            let a = tree.choose(2).unwrap();
            let leaf = if a == 0 {
                vec![a, tree.choose(3).unwrap()]
            } else {
                vec![a]
            };
            assert_eq!(tree.choices().iter().map(|&c| c as usize).collect::<Vec<_>>(), leaf);
            leaves.push(leaf);
            if !tree.advance() {
                break;
            }
        }
        assert_eq!(leaves, vec![vec![0, 0], vec![0, 1], vec![0, 2], vec![1]]);
    }

    /// Every leaf of `shape` (options at each branch point, by the choices before it), explored by
    /// one tree that keeps donating its shallowest untried options into a queue that is drained in
    /// depth-first order, and by one tree alone: the same leaves, each once.
    #[test]
    fn donated_subtrees_cover_every_leaf_once() {
        fn options_at(choices: &[usize]) -> Option<usize> {
            match choices {
                [] => Some(3),
                [0] | [2] => Some(2),
                [1] => None,
                [0, 1] | [2, 0] => Some(3),
                _ => None,
            }
        }
        fn run(tree: &mut DecisionTree) -> Vec<usize> {
            let mut leaf = vec![];
            while let Some(n) = options_at(&leaf) {
                leaf.push(tree.choose(n).unwrap());
            }
            leaf
        }
        let mut alone = vec![];
        let mut tree = DecisionTree::new();
        loop {
            alone.push(run(&mut tree));
            if !tree.advance() {
                break;
            }
        }
        assert_eq!(alone.len(), 9);
        let mut queue = std::collections::BTreeSet::new();
        let mut donated = 0;
        let mut split = vec![];
        let mut tree = DecisionTree::new();
        loop {
            split.push(run(&mut tree));
            let more = tree.advance();
            if more {
                let subtrees = tree.donate();
                donated += subtrees.len();
                queue.extend(subtrees);
            }
            if !more {
                match queue.pop_first() {
                    Some(subtree) => tree = DecisionTree::subtree(&subtree),
                    None => break,
                }
            }
        }
        let mut sorted = split.clone();
        sorted.sort();
        assert_eq!(sorted, alone, "the same leaves, each once");
        assert_eq!(split, alone, "drained in depth-first order, the same order");
        assert!(donated >= 3, "subtrees were handed out: {donated}");
    }

    #[test]
    fn a_subtree_explores_below_its_prefix_only() {
        let subtree = Subtree {
            choices: vec![1],
            options: vec![2],
            records: vec![],
            shared: vec![],
        };
        let mut tree = DecisionTree::subtree(&subtree);
        let mut leaves = vec![];
        loop {
            let a = tree.choose(2).unwrap();
            leaves.push(vec![a, tree.choose(2).unwrap()]);
            if !tree.advance() {
                break;
            }
        }
        assert_eq!(leaves, vec![vec![1, 0], vec![1, 1]]);
        assert_eq!(
            DecisionTree::subtree(&subtree).choose(3).unwrap_err().expected_options,
            2
        );
    }

    #[test]
    fn a_changed_shape_is_a_divergence() {
        let mut tree = DecisionTree::new();
        tree.choose(2).unwrap();
        assert!(tree.advance());
        assert_eq!(
            tree.choose(3),
            Err(Divergence {
                depth: 0,
                expected_options: 2,
                found_options: 3,
                from_token: false
            })
        );
    }

    /// The leaves of a tree of two branch points of three options each, where option 0 of the
    /// first point keeps a record that covers (or not), and its subtree gave way (or not).
    fn leaves_with_first_record(covers: bool, covers_nothing: bool) -> Vec<Vec<usize>> {
        use crate::explore::footprint::Footprint;
        use shuttle::current::TaskId;
        let mut tree = DecisionTree::new();
        let mut leaves = vec![];
        loop {
            let a = tree.choose(3).unwrap();
            if a == 0 {
                let record = SleepRecord {
                    option: 0,
                    task: TaskId::from(1),
                    footprint: Footprint::default(),
                    young_from: 0,
                    eligible: true,
                    covers,
                };
                tree.keep_record(0, record);
            }
            let b = tree.choose(3).unwrap();
            if covers_nothing {
                tree.mark_covers_nothing(1);
            }
            leaves.push(vec![a, b]);
            if !tree.advance() {
                break;
            }
        }
        leaves
    }

    #[test]
    fn an_option_that_covers_ends_its_branch_point() {
        let all = leaves_with_first_record(false, false);
        assert_eq!(all.len(), 9);
        let covered = leaves_with_first_record(true, false);
        assert_eq!(
            covered,
            vec![vec![0, 0], vec![0, 1], vec![0, 2]],
            "options 1 and 2 covered"
        );
        assert_eq!(
            leaves_with_first_record(true, true),
            all,
            "a subtree that gave way, or shared a receiver, covers nothing"
        );
    }

    fn record(option: u32, covers: bool) -> SleepRecord {
        SleepRecord {
            option,
            task: shuttle::current::TaskId::from(1),
            footprint: crate::explore::footprint::Footprint::default(),
            young_from: 0,
            eligible: true,
            covers,
        }
    }

    /// The tree of `leaves_with_first_record` split between a first tree and the subtrees it
    /// hands out after its first execution, explored after it (as a second worker would, once the
    /// first tree published what it completed): the leaves explored, and the records the subtrees
    /// sleep with at the first point. `split_below`: the first tree also hands out a subtree below
    /// its option 0 (whose completion then is not its own to publish).
    fn split_leaves(covers: bool, split_below: bool) -> (Vec<Vec<usize>>, Vec<Vec<u32>>) {
        let mut published: std::collections::HashMap<Vec<u32>, Vec<Completion>> = Default::default();
        let mut queue = std::collections::BTreeSet::new();
        let mut leaves = vec![];
        let mut tree = DecisionTree::new();
        let mut first = true;
        let mut sleepers = vec![];
        loop {
            let a = tree.choose(3).unwrap();
            if a == 0 {
                tree.keep_record(0, record(0, covers));
            }
            leaves.push(vec![a, tree.choose(3).unwrap()]);
            let more = tree.advance();
            if std::mem::take(&mut first) {
                queue.extend(tree.donate());
                if split_below {
                    queue.extend(tree.donate());
                }
            }
            for c in tree.take_completions() {
                published.entry(c.key.clone()).or_default().push(c);
            }
            if !more {
                loop {
                    let Some(subtree) = queue.pop_first() else {
                        return (leaves, sleepers);
                    };
                    tree = DecisionTree::subtree(&subtree);
                    if tree.learn(|key| published.get(key).map(Vec::as_slice)) {
                        if subtree.choices.len() == 1 {
                            sleepers.push(tree.sleepers_at(0).map(|r| r.option).collect());
                        }
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn split_trees_learn_what_one_tree_knew_when_it_moved_on() {
        let (leaves, sleepers) = split_leaves(false, false);
        let mut sorted = leaves.clone();
        sorted.sort();
        assert_eq!(sorted, leaves_with_first_record(false, false), "every leaf once");
        assert_eq!(
            sleepers,
            vec![vec![0], vec![0]],
            "option 0's record sleeps in options 1 and 2"
        );
        let (covered, _) = split_leaves(true, false);
        assert_eq!(
            covered,
            leaves_with_first_record(true, false),
            "options 1 and 2, handed out, are covered once option 0 is complete"
        );
        let (split, sleepers) = split_leaves(true, true);
        assert_eq!(
            split.len(),
            9,
            "option 0 handed out in part: complete nowhere, so covering nothing"
        );
        assert_eq!(sleepers, vec![Vec::<u32>::new(), vec![]]);
    }

    #[test]
    fn replays_a_token() {
        let mut tree = DecisionTree::replaying(&[1, 2]);
        assert_eq!(tree.choose(2), Ok(1));
        assert_eq!(tree.choose(3), Ok(2));
        assert_eq!(tree.choose(4), Ok(0));
        assert!(!tree.advance());
    }
}
