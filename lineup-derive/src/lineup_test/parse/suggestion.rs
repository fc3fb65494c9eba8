//! The option a misspelled one was probably meant to be.

use super::options::OPTIONS;

/// The option nearest to a misspelled one, if it is close (edit distance at most 2).
pub(super) fn closest_option(name: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .map(|o| (edit_distance(name, o), *o))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, o)| o)
}

/// Levenshtein distance.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_insertions_deletions_and_substitutions() {
        assert_eq!(edit_distance("thread", "threads"), 1);
        assert_eq!(edit_distance("treads", "threads"), 1);
        assert_eq!(edit_distance("sed", "seed"), 1);
        assert_eq!(edit_distance("abc", "xyz"), 3);
        assert_eq!(closest_option("thread"), Some("threads"));
        assert_eq!(closest_option("preemption"), None);
    }
}
