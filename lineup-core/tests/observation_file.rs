//! Observation files: round trips, atomic writes, and the errors for malformed files.

use std::path::{Path, PathBuf};

use lineup_core::observation_file::{
    check_matches, from_xml_str, read_observation_file, to_xml_string, write_observation_file, ObservationFileError,
};
use lineup_core::{op_table, History, InvocationLabel, ObservationSet, OpTable, Response, TestMatrix};

fn label(name: &str, args: &[&str]) -> InvocationLabel {
    InvocationLabel::new(name, args.iter().map(|a| a.to_string()).collect())
}

fn returned(s: &str) -> Option<Response> {
    Some(Response::Returned(s.to_string()))
}

/// Adds the histories, in the paper's notation, that share `responses`.
fn add_group(set: &mut ObservationSet, responses: &[Option<Response>], histories: &[&str]) {
    for h in histories {
        let h = History::parse_notation(set.ops().clone(), h, responses.to_vec()).unwrap();
        assert!(set.insert(h));
    }
}

/// The 2x2 queue test of Fig. 7: A runs add(200), add(400); B runs take(), take().
fn queue_ops() -> OpTable {
    let labels = [label("add", &["200"]), label("add", &["400"]), label("take", &[])];
    op_table(&TestMatrix::new(vec![vec![0, 1], vec![2, 2]]), &labels)
}

fn queue_set() -> ObservationSet {
    let mut set = ObservationSet::new(queue_ops());
    add_group(
        &mut set,
        &[
            returned("()"),
            returned("()"),
            returned("Some(200)"),
            returned("Some(400)"),
        ],
        &["1[ ]1 2[ ]2 3[ ]3 4[ ]4", "1[ ]1 3[ ]3 2[ ]2 4[ ]4"],
    );
    add_group(
        &mut set,
        &[returned("()"), None, returned("Some(200)"), None],
        &["1[ ]1 3[ ]3 4[ #"],
    );
    add_group(&mut set, &[None, None, None, None], &["3[ #"]);
    set
}

/// A test with every kind of awkward string: the main thread's initial op, names and values
/// with XML metacharacters, empty and whitespace-only strings, unicode, CR/LF, control chars.
fn nasty_ops() -> OpTable {
    let labels = [
        label("put<&>\"'", &["\t\n", "é🎉\r\n", "  spaced  ", "", " "]),
        label("add", &["\"a \\\"quoted\\\" <b> & c\""]),
        label("take", &[]),
        label("try_take", &[]),
    ];
    op_table(
        &TestMatrix::new(vec![vec![1, 2], vec![3, 2]]).with_initial(vec![0]),
        &labels,
    )
}

fn nasty_set() -> ObservationSet {
    let mut set = ObservationSet::new(nasty_ops());
    add_group(
        &mut set,
        &[
            returned("()"),
            returned(""),
            returned("Some(\"  x <y> & z ]]> \")"),
            returned("None"),
            returned(" "),
        ],
        &["1[ ]1 2[ ]2 3[ ]3 4[ ]4 5[ ]5", "1[ ]1 4[ ]4 2[ ]2 3[ ]3 5[ ]5"],
    );
    add_group(
        &mut set,
        &[returned("()"), None, None, returned("None"), None],
        &["1[ ]1 4[ ]4 5[ #"],
    );
    add_group(
        &mut set,
        &[
            returned("()"),
            returned("\r"),
            Some(Response::Panicked(
                "index out of bounds: the len is 0\n  at <src/lib.rs:3:5> & \"quotes\" \u{1b}[31mred\u{1b}[0m".into(),
            )),
            returned("\n\t"),
            Some(Response::Panicked(" ".into())),
        ],
        &["1[ ]1 2[ ]2 3[ ]3 4[ ]4 5[ ]5"],
    );
    add_group(
        &mut set,
        &[returned("()"), returned("x"), None, None, None],
        &["1[ ]1 2[ ]2 3[ #"],
    );
    set
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn queue_xml() -> String {
    std::fs::read_to_string(fixture("queue.xml")).unwrap()
}

/// The queue fixture with `from` replaced by `to` on line `line` (from 1).
fn queue_with(line: usize, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = queue_xml().lines().map(String::from).collect();
    assert!(lines[line - 1].contains(from), "line {line} is `{}`", lines[line - 1]);
    lines[line - 1] = lines[line - 1].replacen(from, to, 1);
    lines.join("\n")
}

fn read_err(xml: &str) -> String {
    from_xml_str(xml, "q.xml").unwrap_err().to_string()
}

#[test]
fn round_trip_keeps_full_and_stuck_groups_and_awkward_strings() {
    let set = nasty_set();
    assert_eq!(
        (set.observations().len(), set.full_count(), set.stuck_count()),
        (4, 3, 2)
    );
    let xml = to_xml_string(&set);
    let back = from_xml_str(&xml, "nasty.xml").unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(back, set);
    assert_eq!(back.ops(), set.ops());
    assert_eq!(to_xml_string(&back), xml, "writing is deterministic");

    // The shapes the format promises.
    for snippet in [
        r#"<op id="1" thread="main" name="put&lt;&amp;&gt;&quot;'">"#,
        r#"<arg>  spaced  </arg>"#,
        r#"<arg/>"#,
        r#"<arg value=" "/>"#,
        r#"<arg value="&#9;&#10;"/>"#,
        r#"<result value=" "/>"#,
        r#"<result value="&#13;"/>"#,
        "<arg>é🎉&#13;\n</arg>",
        r#"<thread id="main">1</thread>"#,
        r#"<thread id="B">4 5B</thread>"#,
        r#"<thread id="B"/>"#,
        r#"<panicked value=" "/>"#,
        r#"<history>1[ ]1 4[ ]4 5[ #</history>"#,
    ] {
        assert!(xml.contains(snippet), "no `{snippet}` in\n{xml}");
    }
    // A group lists only the ops it calls; the blocking one has no result.
    let stuck = &back.observations()[1];
    assert_eq!(stuck.key.called, vec![1, 4, 5]);
    assert_eq!(stuck.key.pending, Some(5));
    assert_eq!(stuck.key.responses[4], None);
}

#[test]
fn an_empty_set_round_trips() {
    let set = ObservationSet::new(queue_ops());
    assert_eq!(from_xml_str(&to_xml_string(&set), "empty.xml").unwrap(), set);
    // A test without ops has one serial history: the empty one.
    let mut none = ObservationSet::new(Vec::new().into());
    assert_eq!(from_xml_str(&to_xml_string(&none), "none.xml").unwrap(), none);
    none.insert(History::new(none.ops().clone(), vec![], vec![], false).unwrap());
    let xml = to_xml_string(&none);
    assert!(xml.contains("<history/>"), "{xml}");
    assert_eq!(from_xml_str(&xml, "none.xml").unwrap(), none);
}

#[test]
fn windows_line_endings_and_a_byte_order_mark_are_accepted() {
    let xml = format!("\u{feff}{}", queue_xml().replace('\n', "\r\n"));
    assert_eq!(from_xml_str(&xml, "crlf.xml").unwrap(), queue_set());
    let bad = xml.replace("3[ #", "3[ x");
    assert_eq!(
        from_xml_str(&bad, "crlf.xml").unwrap_err().to_string(),
        "crlf.xml:50: history `3[ x`: token 2 `x` is not a call `i[`, a return `]i` or a final `#`"
    );
}

#[test]
fn a_group_may_appear_only_once() {
    let xml = queue_xml();
    let first = &xml[xml.find("  <observation>").unwrap()..xml.find("  </observation>").unwrap()];
    let twice = xml.replace(
        "</observationset>",
        &format!("{first}  </observation>\n</observationset>"),
    );
    assert_eq!(
        from_xml_str(&twice, "q.xml").unwrap_err().to_string(),
        "q.xml:52: this <observation> has the same ops and results as the one at line 13: merge their histories"
    );
}

#[test]
fn the_queue_test_writes_the_fixture_and_reads_it_back() {
    let set = queue_set();
    assert_eq!(to_xml_string(&set), queue_xml());
    let read = read_observation_file(&fixture("queue.xml")).unwrap();
    assert_eq!(read, set);
    check_matches(&read, &queue_ops(), "queue.xml").unwrap();
}

#[test]
fn writes_atomically_and_creates_directories() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("obs").join("queue");
    let path = sub.join("2x2.xml");
    write_observation_file(&path, &queue_set()).unwrap();
    assert_eq!(read_observation_file(&path).unwrap(), queue_set());

    // Overwriting replaces the file and leaves nothing else behind.
    write_observation_file(&path, &nasty_set()).unwrap();
    assert_eq!(read_observation_file(&path).unwrap(), nasty_set());
    let names: Vec<String> = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["2x2.xml".to_string()]);

    // A target that cannot be replaced (a directory) fails with the path, and the temporary
    // file is cleaned up.
    let blocked = sub.join("blocked.xml");
    std::fs::create_dir(&blocked).unwrap();
    let err = write_observation_file(&blocked, &queue_set()).unwrap_err();
    assert!(matches!(err, ObservationFileError::Io { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with(&format!("{}: cannot rename ", blocked.display())),
        "{err}"
    );
    let mut names: Vec<String> = std::fs::read_dir(&sub)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, vec!["2x2.xml".to_string(), "blocked.xml".to_string()]);

    // Parent "directory" that is a file.
    let under_file = path.join("x.xml");
    let err = write_observation_file(&under_file, &queue_set()).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}: cannot create the directory {}: ",
            under_file.display(),
            path.display()
        )),
        "{err}"
    );
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nope.xml");
    let err = read_observation_file(&path).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}: cannot read the file: ", path.display())),
        "{err}"
    );
    assert_eq!(err.file(), path.display().to_string());
    assert_eq!(err.line(), None);
}

#[test]
fn a_bad_history_token_names_the_file_and_line() {
    let path = fixture("bad_token.xml");
    let err = read_observation_file(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:31: history `1[ x]1 3[ ]3 2[ ]2 4[ ]4`: token 2 `x]1` is not a call `i[`, a return `]i` or a final `#`",
            path.display()
        )
    );
    assert_eq!(err.line(), Some(31));
    assert!(matches!(err, ObservationFileError::Invalid { .. }));
}

#[test]
fn an_unclosed_tag_is_malformed_xml_at_its_line() {
    let path = fixture("unclosed.xml");
    let err = read_observation_file(&path).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:42: malformed XML: ill-formed document: expected `</result>`, but `</op>` was found \
             (<result> was opened at line 41)",
            path.display()
        )
    );
    assert!(matches!(err, ObservationFileError::Syntax { line: 42, .. }));

    // A file cut short.
    let xml = queue_xml();
    let cut = &xml[..xml.find("<result>Some(400)").unwrap()];
    assert_eq!(
        read_err(cut),
        "q.xml:27: malformed XML: <op> is never closed: the file ends first"
    );
}

#[test]
fn an_op_not_in_the_matrix_is_reported_at_its_line() {
    let xml = queue_with(43, r#"<op id="4" name="take"/>"#, r#"<op id="7" name="take"/>"#);
    assert_eq!(
        read_err(&xml),
        "q.xml:43: op 7 is not in the matrix, which has ops 1 to 4"
    );
    let xml = queue_with(50, "3[ #", "3[ ]9 #");
    assert_eq!(
        read_err(&xml),
        "q.xml:50: history `3[ ]9 #`: op 9 is not in the matrix, which has ops 1 to 4"
    );
    let xml = queue_with(35, "3 4B", "3 4B 5");
    assert_eq!(
        read_err(&xml),
        "q.xml:35: op 5 is not in the matrix, which has ops 1 to 4"
    );
}

#[test]
fn malformed_files_say_what_is_wrong_and_where() {
    let cases = [
        (
            queue_with(31, "1[ ]1 3[ ]3", "1[ 3[ ]1 ]3"),
            "q.xml:31: history `1[ 3[ ]1 ]3 2[ ]2 4[ ]4`: it is not serial (each call must be followed by \
             its return): an observation file holds serial histories only",
        ),
        (
            queue_with(31, "1[ ]1 3[ ]3", "1[ ]1 1[ ]3"),
            "q.xml:31: history `1[ ]1 1[ ]3 2[ ]2 4[ ]4`: `1[`: op 1 is called twice",
        ),
        (
            queue_with(25, "<result>Some(200)</result>", "<value>Some(200)</value>"),
            "q.xml:25: unknown element <value> inside <op> (expected <arg>, <result> or <panicked>)",
        ),
        (
            queue_with(30, "<history>", "<thread id=\"C\"/><history>"),
            "q.xml:30: <thread> must come before <op> inside <observation>",
        ),
        (
            queue_with(10, " thread=\"B\"", ""),
            "q.xml:10: <op> has no `thread` attribute",
        ),
        (
            queue_with(16, "id=\"1\"", "id=\"1\" extra=\"x\""),
            "q.xml:16: unknown attribute `extra` on <op> (expected `id` or `name`)",
        ),
        (
            queue_with(10, "thread=\"B\"", "thread=\"b\""),
            "q.xml:10: bad thread name in <op id=\"3\">: `b` is not a thread name (expected `main`, a capital \
             letter A-Z, or T<number>)",
        ),
        (
            queue_with(47, "\"A\"", "\"C\""),
            "q.xml:47: thread C has no ops in the matrix",
        ),
        (
            queue_with(28, "<result>Some(400)</result>", ""),
            "q.xml:30: history `1[ ]1 2[ ]2 3[ ]3 4[ ]4`: op 4 returns, but <op id=\"4\"> has no <result> \
             or <panicked>",
        ),
        (
            queue_with(
                43,
                "<op id=\"4\" name=\"take\"/>",
                "<op id=\"4\" name=\"take\"><result>None</result></op>",
            ),
            "q.xml:44: history `1[ ]1 3[ ]3 4[ #`: op 4 does not return, but <op id=\"4\"> has a <result> or \
             <panicked>",
        ),
        (
            queue_with(44, "1[ ]1 3[ ]3 4[ #", "1[ ]1 3[ ]3 2[ ]2 4[ #"),
            "q.xml:44: history `1[ ]1 3[ ]3 2[ ]2 4[ #`: op 2 returns, but this <observation> has no \
             <op id=\"2\">",
        ),
        (
            queue_with(24, "name=\"take\"", "name=\"try_take\""),
            "q.xml:24: op 3 is `try_take()` here but `take()` in the <matrix>",
        ),
        (
            queue_with(35, "3 4B", "3 4"),
            "q.xml:44: history `1[ ]1 3[ ]3 4[ #`: it is stuck on op 4, but no op is marked blocking (write 4B \
             in its <thread>)",
        ),
        (
            queue_with(15, "3 4", "3 4B"),
            "q.xml:30: history `1[ ]1 2[ ]2 3[ ]3 4[ ]4`: it is not stuck (no final #), but op 4 is marked \
             blocking (4B)",
        ),
        (
            queue_with(14, "1 2", "2 1"),
            "q.xml:30: history `1[ ]1 2[ ]2 3[ ]3 4[ ]4`: thread A calls its ops in the order 1 2, but \
             <thread id=\"A\"> lists 2 1",
        ),
        (
            queue_with(14, "1 2", "1 x"),
            "q.xml:14: <thread id=\"A\">: `x` is not an op id (expected a number from 1, with a B suffix on \
             the blocking op)",
        ),
        (
            queue_with(15, "3 4", "3"),
            "q.xml:27: op 4 is not listed in <thread id=\"B\">",
        ),
        (
            queue_with(18, "<result>()</result>", "<result> </result>"),
            "q.xml:18: <result> holds only whitespace, which XML readers drop: write a whitespace-only value \
             as <result value=\"...\"/>",
        ),
        (
            queue_with(13, "<observation>", "<observation>oops"),
            "q.xml:13: unexpected text `oops` inside <observation>",
        ),
        (
            queue_with(25, "Some(200)", "Some(&nbsp;)"),
            "q.xml:25: malformed XML: unknown entity `&nbsp;`",
        ),
        (
            queue_with(50, "<history>3[ #</history>", ""),
            "q.xml:46: <observation> has no <history>",
        ),
        (
            queue_with(7, "id=\"2\"", "id=\"3\""),
            "q.xml:7: the <matrix> must number its ops 1, 2, 3, ... in order: found id=\"3\" where 2 belongs",
        ),
        (
            queue_with(31, "1[ ]1 3[ ]3 2[ ]2 4[ ]4", "1[ ]1 2[ ]2 3[ ]3 4[ ]4"),
            "q.xml:31: history `1[ ]1 2[ ]2 3[ ]3 4[ ]4` appears twice in this <observation>",
        ),
        (String::new(), "q.xml:1: no <observationset> element: the file is empty"),
        (
            "<observations/>".to_string(),
            "q.xml:1: the root element is <observations>, but an observation file has <observationset>",
        ),
        (
            "<?xml version=\"1.0\"?>\n<observationset>\n  <observation>\n".to_string(),
            "q.xml:3: <observationset> needs a <matrix> before <observation>",
        ),
    ];
    for (xml, expected) in cases {
        assert_eq!(read_err(&xml), expected, "in\n{xml}");
    }
}

#[test]
fn a_file_for_another_test_does_not_match() {
    let set = queue_set();
    // Same shape, but B's first op is try_take.
    let labels = [
        label("add", &["200"]),
        label("add", &["400"]),
        label("take", &[]),
        label("try_take", &[]),
    ];
    let other = op_table(&TestMatrix::new(vec![vec![0, 1], vec![3, 2]]), &labels);
    let err = check_matches(&set, &other, "queue.xml").unwrap_err();
    assert_eq!(
        err.to_string(),
        "queue.xml: the observation file does not belong to this test: op 3 is `take()` on thread B in the file \
         but `try_take()` on thread B in the test"
    );
    assert!(matches!(err, ObservationFileError::Mismatch { .. }));

    // A bigger test.
    let bigger = op_table(&TestMatrix::new(vec![vec![0, 1], vec![2, 2], vec![2]]), &labels);
    assert_eq!(
        check_matches(&set, &bigger, "queue.xml").unwrap_err().to_string(),
        "queue.xml: the observation file does not belong to this test: op 5 is `take()` on thread C in the test \
         but the file has only 4 ops"
    );
    // Several differences: the first is named, the rest counted.
    let swapped = op_table(&TestMatrix::new(vec![vec![2, 2], vec![0, 1]]), &labels);
    assert_eq!(
        check_matches(&set, &swapped, "queue.xml").unwrap_err().to_string(),
        "queue.xml: the observation file does not belong to this test: op 1 is `add(200)` on thread A in the file \
         but `take()` on thread A in the test (and 3 more differing ops)"
    );
}
