//! A small, strict reader of the EDN subset that Jepsen histories use.
//!
//! No EDN crate on crates.io is both maintained and strict (`edn` was last released in 2017,
//! `edn-rs` says it makes no effort to conform to the specification), and histories need only a
//! handful of forms, so this reader is written here: `nil`, `true`, `false`, whole numbers
//! (an optional sign, an optional `N` suffix), strings with the escapes `\" \\ \n \t \r \uXXXX`,
//! keywords (`:invoke`, `:jepsen/type`), vectors `[...]`, lists `(...)` and maps `{...}` with
//! keyword keys. Commas are whitespace, as in EDN. Anything else (floats, symbols, sets, tags,
//! characters) is an error naming the column and what was expected.

use super::Value;

/// An EDN form read by [`EdnReader`]: a [`Value`] or a map with keyword keys in file order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Form {
    /// A scalar, vector or list.
    Value(Value),
    /// A map: (keyword without its colon, column of the key, value) in file order.
    Map(Vec<(String, usize, Form)>),
}

/// Where reading went wrong: the column (from 1, in characters), what was expected, what was
/// found.
#[derive(Debug)]
pub(crate) struct EdnError {
    pub column: usize,
    pub expected: String,
    pub found: String,
}

/// Reads EDN forms from one line of text.
pub(crate) struct EdnReader<'a> {
    chars: Vec<(usize, char)>,
    text: &'a str,
    pos: usize,
}

impl<'a> EdnReader<'a> {
    /// A reader at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            chars: text.char_indices().collect(),
            text,
            pos: 0,
        }
    }

    /// The current column, from 1.
    pub(crate) fn column(&self) -> usize {
        self.pos + 1
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn rest(&self) -> &'a str {
        match self.chars.get(self.pos) {
            Some(&(byte, _)) => &self.text[byte..],
            None => "",
        }
    }

    fn error(&self, expected: impl Into<String>) -> EdnError {
        EdnError {
            column: self.column(),
            expected: expected.into(),
            found: super::error::excerpt(self.rest()),
        }
    }

    /// Skips whitespace and commas.
    pub(crate) fn skip_space(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_whitespace() || c == ',') {
            self.pos += 1;
        }
    }

    /// Whether only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.pos >= self.chars.len()
    }

    /// Fails unless only whitespace is left.
    pub(crate) fn expect_end(&mut self) -> Result<(), EdnError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("the end of the line"))
        }
    }

    /// Reads one form.
    pub(crate) fn read(&mut self) -> Result<Form, EdnError> {
        self.skip_space();
        match self.peek() {
            None => Err(self.error("an EDN value")),
            Some('{') => self.read_map(),
            Some('[') => self.read_seq(']').map(Form::Value),
            Some('(') => self.read_seq(')').map(Form::Value),
            Some('"') => self.read_string().map(|s| Form::Value(Value::Str(s))),
            Some(':') => self.read_keyword().map(|k| Form::Value(Value::Keyword(k))),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => self.read_int().map(Form::Value),
            Some(_) => {
                let token = self.token();
                match token.as_str() {
                    "nil" => Ok(Form::Value(Value::Nil)),
                    "true" => Ok(Form::Value(Value::Bool(true))),
                    "false" => Ok(Form::Value(Value::Bool(false))),
                    _ => {
                        self.pos -= token.chars().count();
                        Err(self.error(
                            "an EDN value (nil, true, false, an integer, a \"string\", a :keyword, [...], (...) or {...})",
                        ))
                    }
                }
            }
        }
    }

    /// Reads one form that must be a value (not a map).
    pub(crate) fn read_value(&mut self) -> Result<Value, EdnError> {
        self.skip_space();
        let column = self.column();
        match self.read()? {
            Form::Value(v) => Ok(v),
            Form::Map(_) => Err(EdnError {
                column,
                expected: "a value that is not a map".into(),
                found: "a map".into(),
            }),
        }
    }

    /// The characters up to the next delimiter.
    fn token(&mut self) -> String {
        let mut token = String::new();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || matches!(c, ',' | '{' | '}' | '[' | ']' | '(' | ')' | '"') {
                break;
            }
            token.push(c);
            self.pos += 1;
        }
        token
    }

    fn read_keyword(&mut self) -> Result<String, EdnError> {
        let start = self.pos;
        self.pos += 1; // ':'
        let name = self.token();
        let valid = !name.is_empty()
            && !name.starts_with(':')
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_alphanumeric() || "*+!-_?<>=/.".contains(c));
        if !valid {
            self.pos = start;
            return Err(self.error("a keyword such as `:invoke`"));
        }
        Ok(name)
    }

    fn read_int(&mut self) -> Result<Value, EdnError> {
        let start = self.pos;
        let token = self.token();
        let digits = token.strip_suffix('N').unwrap_or(&token);
        let unsigned = digits.strip_prefix(['-', '+']).unwrap_or(digits);
        let valid = !unsigned.is_empty() && unsigned.chars().all(|c| c.is_ascii_digit());
        match digits.parse::<i64>() {
            Ok(n) if valid => Ok(Value::Int(n)),
            _ => {
                self.pos = start;
                Err(self.error(if valid {
                    "an integer that fits in 64 bits"
                } else {
                    "an integer (floats and symbols are not supported)"
                }))
            }
        }
    }

    fn read_string(&mut self) -> Result<String, EdnError> {
        let start = self.pos;
        self.pos += 1; // '"'
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    self.pos = start;
                    return Err(self.error("a string closed by `\"` on the same line"));
                }
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some('"') => '"',
                        Some('\\') => '\\',
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('r') => '\r',
                        Some('u') => {
                            let hex: String = self.chars[self.pos + 1..].iter().take(4).map(|&(_, c)| c).collect();
                            match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                                Some(c) if hex.len() == 4 => {
                                    self.pos += 4;
                                    c
                                }
                                _ => return Err(self.error("four hexadecimal digits after `\\u`")),
                            }
                        }
                        _ => return Err(self.error("an escape: \\\" \\\\ \\n \\t \\r or \\uXXXX")),
                    };
                    out.push(escaped);
                    self.pos += 1;
                }
                Some(c) => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    fn read_seq(&mut self, close: char) -> Result<Value, EdnError> {
        self.pos += 1; // '[' or '('
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(Value::List(items));
                }
                None => return Err(self.error(format!("a value or `{close}`"))),
                Some(_) => items.push(self.read_value()?),
            }
        }
    }

    fn read_map(&mut self) -> Result<Form, EdnError> {
        self.pos += 1; // '{'
        let mut entries: Vec<(String, usize, Form)> = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                Some('}') => {
                    self.pos += 1;
                    return Ok(Form::Map(entries));
                }
                Some(':') => {
                    let column = self.column();
                    let key = self.read_keyword()?;
                    if entries.iter().any(|(k, _, _)| *k == key) {
                        self.pos = column - 1;
                        return Err(self.error(format!("each key once in a map, `:{key}` is repeated")));
                    }
                    self.skip_space();
                    if matches!(self.peek(), None | Some('}')) {
                        return Err(self.error(format!("a value for `:{key}`")));
                    }
                    let value = self.read()?;
                    entries.push((key, column, value));
                }
                _ => return Err(self.error("a :keyword key or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Form, EdnError> {
        let mut r = EdnReader::new(text);
        let form = r.read()?;
        r.expect_end()?;
        Ok(form)
    }

    #[test]
    fn reads_the_forms_histories_use() {
        let form = read(r#"{:process 3, :type :ok, :f :cas, :value [1 -2], :key "a\"b\u0041"}"#).unwrap();
        let Form::Map(entries) = form else { panic!() };
        let values: Vec<_> = entries.iter().map(|(k, _, v)| (k.as_str(), v.clone())).collect();
        assert_eq!(
            values,
            vec![
                ("process", Form::Value(Value::Int(3))),
                ("type", Form::Value(Value::Keyword("ok".into()))),
                ("f", Form::Value(Value::Keyword("cas".into()))),
                ("value", Form::Value(Value::List(vec![Value::Int(1), Value::Int(-2)]))),
                ("key", Form::Value(Value::Str("a\"bA".into()))),
            ]
        );
        assert_eq!(read("nil").unwrap(), Form::Value(Value::Nil));
        assert_eq!(
            read("(1 2N)").unwrap(),
            Form::Value(Value::List(vec![Value::Int(1), Value::Int(2)]))
        );
    }

    #[test]
    fn rejects_what_it_does_not_support_with_a_column() {
        let e = read("{:a 1.5}").unwrap_err();
        assert_eq!(e.column, 5);
        assert!(e.expected.contains("integer"), "{}", e.expected);
        let e = read("{:a 1 :a 2}").unwrap_err();
        assert_eq!(e.column, 7);
        assert!(read("{:a \"open}").unwrap_err().expected.contains("closed"));
        assert!(read("{:a 1} x").unwrap_err().expected.contains("end of the line"));
        assert!(read("{a 1}").unwrap_err().expected.contains("keyword"));
        assert!(read("{:a}").unwrap_err().expected.contains("value for `:a`"));
        assert!(read("sym").is_err());
        assert!(read("[1 2").is_err());
        assert!(read("99999999999999999999").unwrap_err().expected.contains("64 bits"));
    }
}
