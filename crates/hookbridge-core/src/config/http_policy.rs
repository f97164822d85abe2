//! Claude Code's limits on http hooks: `allowedHttpHookUrls` (the URLs an http hook may call) and
//! `httpHookAllowedEnvVars` (the variables its headers may read), merged across the files read.
//!
//! The shaping decision: **a URL is matched as Claude Code matches it, on the parsed URL, never on
//! its text** (measured against Claude Code 2.1.328, cases 276–289, and read in its `nH`). Both the
//! hook's URL and the pattern are parsed as WHATWG URLs (the `url` crate, which implements the
//! standard Node's `new URL` does), `*` standing for any run of characters:
//! - the scheme must be equal, unless the pattern's is `*`;
//! - the host is the parsed hostname (lowercase, IPv4 written as `a.b.c.d` whatever the URL
//!   wrote, `user@` never part of it), without one trailing dot; `*` in a pattern's host may cross
//!   dots but never reaches the path, so `http://*.example.com/*` does not allow
//!   `http://127.0.0.1/x/.example.com/`;
//! - the port must be equal (a scheme's default port counts as none), unless the pattern says
//!   `:*`, or has a wildcard host and no port;
//! - a pattern with no path (and not ending in `/`) and no query allows any path; otherwise its
//!   path and query must match the URL's, `*` crossing `/` and `?`, dot segments already resolved,
//!   nothing percent-decoded, the fragment ignored.
//!
//! A URL that does not parse is refused, and so is one with a host that is not ASCII: hookbridge
//! builds `url` without IDNA (`idna_adapter` 1.0), which keeps 25 crates (the ICU tables) out of
//! the build — measured: a probe crate built in 11 s with it, 62 s with full IDNA — at the price of
//! refusing an http hook on an internationalized host name, which fails closed.

use std::path::{Path, PathBuf};

use url::Url;

/// The limits one file (or one level of files) sets on http hooks: `None` where it does not set
/// the key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpLimits {
    /// URL patterns an http hook's `url` must match; an empty list blocks every http hook.
    pub allowed_urls: Option<Vec<String>>,
    /// The outer limit on each http hook's own `allowedEnvVars`.
    pub allowed_env_vars: Option<Vec<String>>,
}

impl HttpLimits {
    fn absorb(&mut self, other: HttpLimits) {
        fn union(into: &mut Option<Vec<String>>, from: Option<Vec<String>>) {
            if let Some(from) = from {
                let list = into.get_or_insert_with(Vec::new);
                for item in from {
                    if !list.contains(&item) {
                        list.push(item);
                    }
                }
            }
        }
        union(&mut self.allowed_urls, other.allowed_urls);
        union(&mut self.allowed_env_vars, other.allowed_env_vars);
    }
}

/// Who set a limit: managed policy, the user (their own hooks files and settings), or the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyLevel {
    Managed,
    User,
    Project,
}

/// The limits on http hooks from every file read, kept per level. Within a level, lists merge by
/// union, as Claude Code merges its settings files; across levels they only narrow: a URL must
/// match every level that sets a list, so a project can never widen what its user (or managed
/// policy) allows — an empty user list is not undone by a project's `["*"]`. Claude Code lets a
/// project widen it (measured, case 285): hookbridge does not, on purpose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpPolicy {
    pub managed: HttpLimits,
    pub user: HttpLimits,
    pub project: HttpLimits,
}

impl HttpPolicy {
    /// No limits: every URL and every listed variable.
    pub const NONE: HttpPolicy = HttpPolicy {
        managed: HttpLimits {
            allowed_urls: None,
            allowed_env_vars: None,
        },
        user: HttpLimits {
            allowed_urls: None,
            allowed_env_vars: None,
        },
        project: HttpLimits {
            allowed_urls: None,
            allowed_env_vars: None,
        },
    };

    /// Adds the limits of a file (or of another agent's settings) at `level`.
    pub fn absorb(&mut self, level: PolicyLevel, limits: HttpLimits) {
        self.level_mut(level).absorb(limits);
    }

    fn level_mut(&mut self, level: PolicyLevel) -> &mut HttpLimits {
        match level {
            PolicyLevel::Managed => &mut self.managed,
            PolicyLevel::User => &mut self.user,
            PolicyLevel::Project => &mut self.project,
        }
    }

    fn levels(&self) -> [&HttpLimits; 3] {
        [&self.managed, &self.user, &self.project]
    }

    /// Whether an http hook may call `url`: every level that sets `allowedHttpHookUrls` has a
    /// pattern that matches it. (A refusal is worded by
    /// [`NotRunReason::UrlNotAllowed`](crate::decision::NotRunReason::UrlNotAllowed).)
    pub fn allows_url(&self, url: &str) -> bool {
        self.levels().iter().all(|level| {
            level
                .allowed_urls
                .as_ref()
                .is_none_or(|patterns| patterns.iter().any(|p| url_matches(url, p)))
        })
    }

    /// Whether an http hook may read environment variable `name` into a header.
    pub fn allows_env_var(&self, name: &str) -> bool {
        self.levels().iter().all(|level| {
            level
                .allowed_env_vars
                .as_ref()
                .is_none_or(|names| names.iter().any(|n| n == name))
        })
    }
}

/// Claude Code's own settings files that can limit http hooks, with the level each speaks for:
/// its managed settings, the user's `~/.claude/settings.json`, the project's
/// `.claude/settings.json` and `.claude/settings.local.json`. Claude Code applies their
/// `allowedHttpHookUrls` to every http hook (measured, case 296), so hookbridge does too.
pub fn claude_code_settings_files(project: &Path, home: Option<&Path>) -> Vec<(PolicyLevel, PathBuf)> {
    let mut files = vec![(
        PolicyLevel::Managed,
        PathBuf::from("/etc/claude-code/managed-settings.json"),
    )];
    if let Some(home) = home {
        files.push((PolicyLevel::User, home.join(".claude/settings.json")));
    }
    files.push((PolicyLevel::Project, project.join(".claude/settings.json")));
    files.push((PolicyLevel::Project, project.join(".claude/settings.local.json")));
    files
}

/// The limits a Claude Code settings file sets: its `allowedHttpHookUrls` and
/// `httpHookAllowedEnvVars` (lists of strings; anything else in it is not read). `None` when the
/// file is missing or unreadable.
pub fn limits_of_settings_file(path: &Path) -> Option<HttpLimits> {
    let text = super::read_bounded(path, super::MAX_CONFIG_BYTES).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let list = |key: &str| -> Option<Vec<String>> {
        let items = value.get(key)?.as_array()?;
        Some(
            items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
        )
    };
    Some(HttpLimits {
        allowed_urls: list("allowedHttpHookUrls"),
        allowed_env_vars: list("httpHookAllowedEnvVars"),
    })
}

/// What stands for `*` while a pattern is parsed: letters only, so it is valid in every part of a
/// URL and unchanged by the host's lowercasing.
const WILD: &str = "zzhookbridgewildcardzz";

/// Whether `url` matches the `allowedHttpHookUrls` pattern `pattern` (see the module doc).
pub fn url_matches(url: &str, pattern: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    let Ok(url) = Url::parse(url) else {
        return false;
    };
    let written = pattern.replace('*', WILD);
    let (parsed, mut any_port) = match Url::parse(&written) {
        Ok(parsed) => (Some(parsed), false),
        // `host:*`: a port wildcard is no port at all to the parser; read as port 0, any port.
        Err(_) => match port_wildcard_as_zero(&written) {
            Some(zeroed) => (Url::parse(&zeroed).ok(), true),
            None => (None, false),
        },
    };
    let Some(pattern_url) = parsed else {
        // Not a URL even so (no scheme, say): matched segment by segment against the URL
        // written as `scheme://host/path?query`, `*` not crossing `/`.
        let flat = format!(
            "{}://{}{}{}",
            url.scheme(),
            host_port(&url),
            url.path(),
            search(&url)
        );
        return segments_match(pattern, &flat);
    };
    if pattern_url.scheme() != WILD && pattern_url.scheme() != url.scheme() {
        return false;
    }
    let host = |u: &Url| {
        u.host_str()
            .unwrap_or("")
            .strip_suffix('.')
            .map_or_else(|| u.host_str().unwrap_or("").to_string(), str::to_string)
            .to_ascii_lowercase()
    };
    let pattern_host = host(&pattern_url);
    if !glob(&pattern_host.replace(WILD, "*"), &host(&url)) {
        return false;
    }
    if pattern_url.port().is_none() && pattern_host.contains(WILD) {
        any_port = true;
    }
    if !any_port && pattern_url.port() != url.port() {
        return false;
    }
    if matches!(pattern_url.path(), "/" | "") && search(&pattern_url).is_empty() && !written.ends_with('/') {
        return true;
    }
    let pattern_rest = format!("{}{}", pattern_url.path(), search(&pattern_url)).replace(WILD, "*");
    glob(&pattern_rest, &format!("{}{}", url.path(), search(&url)))
}

/// A URL's `?query` as Node's `search` gives it (empty for no query or an empty one).
fn search(url: &Url) -> String {
    match url.query() {
        Some(query) if !query.is_empty() => format!("?{query}"),
        _ => String::new(),
    }
}

fn host_port(url: &Url) -> String {
    match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or("")),
        None => url.host_str().unwrap_or("").to_string(),
    }
}

/// `…:<WILD>` followed by `/`, `?`, `#` or the end, with the wildcard replaced by `0`.
fn port_wildcard_as_zero(written: &str) -> Option<String> {
    let needle = format!(":{WILD}");
    let at = written.find(&needle)?;
    let after = &written[at + needle.len()..];
    if !(after.is_empty() || after.starts_with(['/', '?', '#'])) {
        return None;
    }
    Some(format!("{}:0{after}", &written[..at]))
}

/// Pattern and text split on `/` and matched piece by piece with [`glob`].
fn segments_match(pattern: &str, text: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let text: Vec<&str> = text.split('/').collect();
    pattern.len() == text.len() && pattern.iter().zip(&text).all(|(p, t)| glob(p, t))
}

/// `*`-only glob, case-sensitive: `*` any run of characters, everything else literal. Iterative
/// (no backtracking blow-up).
fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row measured with Claude Code 2.1.328 (cases 276–289 and the report behind them).
    #[test]
    fn urls_are_matched_as_claude_code_matches_them() {
        let p = 18650;
        let rows: &[(&str, String, bool)] = &[
            (
                "http://*.example.com/*",
                format!("http://127.0.0.1:{p}/deny/x/.example.com/"),
                false,
            ),
            (
                "http://*.example.com/*",
                format!("http://a.example.com@127.0.0.1:{p}/deny/userinfo"),
                false,
            ),
            (
                "http://user:pw@127.0.0.1:18650/*",
                format!("http://127.0.0.1:{p}/deny/x"),
                true,
            ),
            (
                "http://127.0.0.1:*/*",
                format!("http://127.0.0.1:{p}/deny/port-wild"),
                true,
            ),
            (
                "http://127.0.0.1:9999/*",
                format!("http://127.0.0.1:{p}/x"),
                false,
            ),
            ("http://127.0.0.1/*", format!("http://127.0.0.1:{p}/x"), false),
            ("http://*:18650/*", format!("http://127.0.0.1:{p}/x"), true),
            ("http://*:9999/*", format!("http://127.0.0.1:{p}/x"), false),
            ("http://*.invalid/*", "http://a.invalid:8443/x".into(), true),
            (
                "http://127.0.0.1:18650",
                format!("http://127.0.0.1:{p}/deny/origin-only"),
                true,
            ),
            (
                "http://127.0.0.1:18650/",
                format!("http://127.0.0.1:{p}/deny/host-slash"),
                false,
            ),
            (
                "http://127.0.0.1:18650/de*",
                format!("http://127.0.0.1:{p}/deny/pre"),
                true,
            ),
            (
                "http://127.0.0.1:18650/deny/*",
                format!("http://127.0.0.1:{p}/deny/a/b"),
                true,
            ),
            (
                "http://LOCALHOST.:18650/*",
                format!("http://LocalHost:{p}/deny/case-dot"),
                true,
            ),
            (
                "http://localhost:18650/*",
                format!("http://LOCALHOST.:{p}/x"),
                true,
            ),
            (
                "http://127.0.0.1:18650/ok/*",
                format!("http://127.0.0.1:{p}/ok/../deny/escape"),
                false,
            ),
            (
                "http://127.0.0.1:18650/deny/*",
                format!("http://127.0.0.1:{p}/deny/../deny/dotdot"),
                true,
            ),
            (
                "http://127.0.0.1:18650/deny/q",
                format!("http://127.0.0.1:{p}/deny/q?x=1"),
                false,
            ),
            (
                "http://127.0.0.1:18650/deny/*",
                format!("http://127.0.0.1:{p}/deny/q?x=1"),
                true,
            ),
            (
                "http://127.0.0.1:18650/deny/q?*",
                format!("http://127.0.0.1:{p}/deny/q?x=1"),
                true,
            ),
            (
                "http://127.0.0.1:18650/deny/frag",
                format!("http://127.0.0.1:{p}/deny/frag#x"),
                true,
            ),
            (
                "http://127.0.0.1:18650/deny/abc",
                format!("http://127.0.0.1:{p}/deny/%61bc"),
                false,
            ),
            (
                "http://127.0.0.1:18650/deny/%61bc",
                format!("http://127.0.0.1:{p}/deny/abc"),
                false,
            ),
            (
                "http://127.0.0.1:18650/*",
                format!("http://2130706433:{p}/deny/ipint"),
                true,
            ),
            ("*://127.0.0.1:18650/*", format!("http://127.0.0.1:{p}/x"), true),
            ("*", "gopher://anything/at/all".into(), true),
            ("127.0.0.1:18650/*", format!("http://127.0.0.1:{p}/x"), false),
            ("127.0.0.1", format!("http://127.0.0.1:{p}/x"), false),
            ("http://*.example.com/*", "http://hooks.invalid/x".into(), false),
            (
                "https://hooks.example.com/*",
                "https://HOOKS.example.com./v1/check".into(),
                true,
            ),
            (
                "https://hooks.example.com/*",
                "https://hooks.example.com.evil.net/x".into(),
                false,
            ),
            ("https://hooks.example.com/*", "not a url".into(), false),
            (
                "http://127.0.0.1:18650/*",
                "http://bücher.example/x".into(),
                false,
            ),
        ];
        for (pattern, url, allowed) in rows {
            assert_eq!(url_matches(url, pattern), *allowed, "{pattern} against {url}");
        }
    }

    #[test]
    fn an_unset_list_allows_and_an_empty_one_refuses() {
        let mut policy = HttpPolicy::default();
        assert!(policy.allows_url("http://anything"));
        policy.absorb(PolicyLevel::User, limits(Some(&[]), None));
        assert!(!policy.allows_url("http://localhost/x"));
    }

    fn limits(urls: Option<&[&str]>, vars: Option<&[&str]>) -> HttpLimits {
        let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        HttpLimits {
            allowed_urls: urls.map(list),
            allowed_env_vars: vars.map(list),
        }
    }

    #[test]
    fn lists_merge_by_union_within_a_level_and_an_unset_key_allows() {
        let mut merged = HttpPolicy::default();
        merged.absorb(PolicyLevel::User, limits(Some(&["http://a/*"]), None));
        merged.absorb(
            PolicyLevel::User,
            limits(Some(&["http://b/*", "http://a/*"]), Some(&["TOKEN"])),
        );
        assert_eq!(merged.user.allowed_urls.as_deref().map(<[String]>::len), Some(2));
        assert!(merged.allows_url("http://b/x"));
        assert!(merged.allows_env_var("TOKEN"));
        assert!(!merged.allows_env_var("HOME"));
        assert!(HttpPolicy::default().allows_env_var("HOME"));
        // Claude Code's own rule within its settings: `[]` in one file, patterns in another.
        let mut one_level = HttpPolicy::default();
        one_level.absorb(PolicyLevel::Project, limits(Some(&[]), None));
        one_level.absorb(PolicyLevel::Project, limits(Some(&["http://a/*"]), None));
        assert!(one_level.allows_url("http://a/x"));
    }

    #[test]
    fn a_project_only_narrows_what_its_user_and_managed_policy_allow() {
        // The user allows nothing; a project's `*` does not widen that.
        let mut policy = HttpPolicy::default();
        policy.absorb(PolicyLevel::User, limits(Some(&[]), Some(&[])));
        policy.absorb(PolicyLevel::Project, limits(Some(&["*"]), Some(&["SECRET"])));
        assert!(!policy.allows_url("http://evil.example/x"));
        assert!(!policy.allows_env_var("SECRET"));
        // A project narrows: the user allows a.example, the project only /hooks there.
        let mut policy = HttpPolicy::default();
        policy.absorb(
            PolicyLevel::User,
            limits(Some(&["https://a.example/*"]), Some(&["TOKEN", "OTHER"])),
        );
        policy.absorb(
            PolicyLevel::Project,
            limits(Some(&["https://a.example/hooks/*"]), Some(&["TOKEN"])),
        );
        assert!(policy.allows_url("https://a.example/hooks/check"));
        assert!(!policy.allows_url("https://a.example/other"));
        assert!(policy.allows_env_var("TOKEN") && !policy.allows_env_var("OTHER"));
        // Managed policy narrows everything below it.
        policy.absorb(PolicyLevel::Managed, limits(Some(&["https://b.example/*"]), None));
        assert!(!policy.allows_url("https://a.example/hooks/check"));
    }
}
