"""The built-in secret shapes: one compiled regex per kind, each behind literal prefilters.

Modelled on gitleaks' default rule set (github.com/gitleaks/gitleaks, `config/gitleaks.toml`,
MIT licence): the same token prefixes (AKIA…, ghp_…, glpat-…, xox?-…, sk_live_…, sk-ant-…),
the same "keyword, assignment operator, high-entropy value" shape for generic secrets, and
its entropy floor. The regexes are written for this module, not copied. detect-secrets (Yelp)
was measured on the real Claude Code fixture: 0.13 MB/s and thousands of entropy hits on
ordinary lines, far from the 20 MB/s import target, so it is not used at run time.

Every rule names literals (a token's prefix, a keyword) where its match starts (`back`
characters before it): one Hyperscan pass finds every literal occurrence, in any
casing, and a rule's regex is only *matched* at those positions, never searched through
the text — a regex search per rule over every transcript would cost more than the whole
import.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

from ..values import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable


class Rule:
    """One secret shape. `regex` is compiled on first use (`pattern`): text holding none of
    the `literals` (where the rule is tried, in any casing unless `caseless` is false) never
    needs it. `group` is the secret (0 the whole match, -1 the last group that matched);
    `check` redacts a candidate only if it says so; the match starts `back` characters
    before the literal."""

    __slots__ = ("kind", "regex", "literals", "group", "check", "back", "caseless", "_pattern")

    def __init__(self, kind: str, regex: str | re.Pattern[str], literals: tuple[str, ...], group: int = -1,
                 check: Callable[[str, re.Match[str]], bool] | None = None, back: int = 0,
                 caseless: bool = True) -> None:
        self.kind, self.regex, self.literals, self.group = kind, regex, literals, group
        self.check, self.back, self.caseless = check, back, caseless
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile(self.regex)
        return self._pattern


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _mixed(value: str) -> bool:
    return any(ch.isdigit() for ch in value) and any(ch.isalpha() for ch in value)


def _high_entropy(value: str, _m: re.Match[str] | None = None) -> bool:
    """A generated secret, not a word or an identifier: letters and digits, ≥ 3.2 bits/char
    (gitleaks' generic rule uses 3.5 on longer values; short tokens score lower)."""
    return _mixed(value) and entropy(value) >= (3.0 if len(value) < 20 else 3.2)


_PLACEHOLDERS = ("[redacted", "${", "{{", "<", "%(", "%s", "$(", "***", "...", "xxxx", "…")
_CODE_WORDS = frozenset({
    "str", "string", "int", "bool", "bytes", "none", "null", "nil", "true", "false", "undefined", "optional",
    "any", "secretstr", "required", "password", "passwd", "pwd", "self", "input", "prompt", "getpass",
    "env", "os", "config", "settings", "args", "kwargs", "options", "opts", "params", "value", "field",
})
_IDENT_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)+")


def _placeholder(value: str) -> bool:
    low = value.lower()
    return low.startswith(_PLACEHOLDERS) or low.strip("*x.-_ ") == "" or "[redacted:" in low


def _password_value(value: str, m: re.Match[str]) -> bool:
    """A literal password, not code that names one (`password=args.password`, `pwd()`),
    a type (`password: str`), a placeholder (`${PASSWORD}`, `<password>`) or prose."""
    if _placeholder(value) or value.lower() in _CODE_WORDS:
        return False
    if m.group("bare") is None:  # quoted
        return " " not in value.strip() or len(value) <= 64
    end = m.end()
    following = m.string[end:end + 1]
    if following == "(" or _IDENT_PATH.fullmatch(value) or value.startswith(("$", "%", "@", "&", "*")):
        return False
    if m.group("op") == ":" and value.isalpha():
        return False  # `password: required` is prose or a schema; `password: hunter2` is not
    return len(value) >= 4


def _assigned_secret(value: str, m: re.Match[str]) -> bool:
    following = m.string[m.end():m.end() + 1]
    if following == "(" or _placeholder(value) or _IDENT_PATH.fullmatch(value):
        return False
    return _high_entropy(value)


def _credential(value: str, _m: re.Match[str]) -> bool:
    return not _placeholder(value) and (_mixed(value) or len(value) >= 24)


def _url_password(value: str, _m: re.Match[str]) -> bool:
    return not _placeholder(value) and not value.startswith(("$", "%", "{"))


def _cli_password(value: str, _m: re.Match[str]) -> bool:
    """A literal password on a command line, not a variable (`-p"$PASS"`), a prompt flag's
    neighbour (`-p --host`) or a placeholder (`-p<password>`)."""
    return not _placeholder(value) and not value.startswith(("$", "%", "-", "`")) and value.lower() not in _CODE_WORDS


def _flag_secret(value: str, m: re.Match[str]) -> bool:
    """`--password X` takes any literal; `--token X` / `--api-key X` only a generated one."""
    if m.group("flag").lower().startswith("pass"):
        return _cli_password(value, m) and len(value) >= 4
    return not _placeholder(value) and _high_entropy(value)


_OP = r"(?P<op>:=|=>|==?|:)"
_KEY_TAIL = r"[a-z0-9_.-]{0,24}[\"']?\s*"

BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("private-key", r"-----BEGIN[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]{0,16384}?-----END[A-Z0-9 _-]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)",
        ("-----BEGIN",), group=0),
    Rule("gcp-service-account", r"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"", ("private_key_id",)),
    Rule("gcp-service-account", r"private_key\"\s*:\s*\"(-----BEGIN[^\"]{16,8192})\"",
         ("private_key",)),
    Rule("gcp-api-key", r"\b(AIza[0-9A-Za-z_-]{35})(?![0-9A-Za-z_-])", ("AIza",)),
    Rule("gcp-oauth-secret", r"\b(GOCSPX-[0-9A-Za-z_-]{28})(?![0-9A-Za-z_-])", ("GOCSPX-",)),
    Rule("aws-access-key", r"\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b",
         ("AKIA", "ASIA", "ABIA", "ACCA", "A3T")),
    Rule("aws-secret-key", r"(?i)aws[a-z0-9_.-]{0,20}(?:secret|sk)[a-z0-9_.-]{0,20}[\"']?(?:\s*(?::=|=>|=|:)\s*|\s+)[\"']?"
        r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])", ("aws",)),  # `=`, `:` and `aws configure set aws_secret_access_key X`
    Rule("azure-storage-key", r"(?i)(?:AccountKey|SharedAccessKey)\s*=\s*([A-Za-z0-9+/]{40,88}={0,2})",
         ("AccountKey", "SharedAccessKey")),
    Rule("azure-client-secret", r"(?:^|(?<=[\\'\"`\s>=:(,]))([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?=$|[\\'\"`\s<),])", ("Q~",),
         back=4),
    Rule("azure-sas-token", r"(?<=[?&])sig=([A-Za-z0-9%+/]{40,}={0,2})", ("sig=",)),
    Rule("github-token", r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("gitlab-token", r"\b(gl(?:pat|dt|ptt|rt|cbt|imt|ft|oas|soat|agent)-[A-Za-z0-9_-]{20,})",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glimt-", "glft-", "gloas-", "glsoat-", "glagent-")),
    Rule("slack-webhook", r"(https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,})",
         ("https://hooks.slack.com",)),
    Rule("slack-token", r"\b(xox[abposre]-[0-9A-Za-z-]{10,}|xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+)",
         ("xoxb-", "xoxa-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-", "xapp-")),
    Rule("stripe-key", r"\b((?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}|whsec_[A-Za-z0-9]{24,})\b",
         ("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_")),
    Rule("anthropic-key", r"\b(sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{32,})", ("sk-ant-",)),
    Rule("openai-key", r"\b(sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9]{20,}T3BlbkFJ[A-Za-z0-9]{20,}"
        r"|sk-(?!ant-)[A-Za-z0-9]{40,})", ("sk-",)),
    Rule("huggingface-token", r"\b(hf_[A-Za-z]{34,40})\b", ("hf_",)),
    Rule("npm-token", r"\b(npm_[A-Za-z0-9]{36})\b", ("npm_",)),
    Rule("pypi-token", r"\b(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", ("pypi-AgEIcHlwaS5vcmc",)),
    Rule("sendgrid-key", r"\b(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})", ("SG.",)),
    Rule("jwt", r"\b(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)", ("eyJ",)),
    Rule("url-password", r"://[^\s:/@'\"<>`]{0,128}:([^\s/@'\"<>`]{1,256})@(?=[A-Za-z0-9\[])",
         ("://",), check=_url_password),  # `scheme://user:pass@host`, and `redis://:pass@host`
    # Command lines that take a password as an argument (shell history, a Bash tool call).
    Rule("password", r"mysql(?:dump|admin|sh|import)?\b[^\n|;&]{0,300}?\s-p['\"]?([^\s'\"]{3,256})",
         ("mysql",), check=_cli_password),
    Rule("password", r"curl\b[^\n|;&]{0,300}?(?:\s-u\s*|\s--user[=\s]+|\s--proxy-user[=\s]+)['\"]?"
        r"[^\s:'\"]{1,128}:([^\s'\"]{1,256})", ("curl",), check=_cli_password),
    Rule("password", r"docker\s+login\b[^\n|;&]{0,300}?\s(?:-p|--password)(?:=|\s+)['\"]?([^\s'\"]{3,256})",
         ("docker",), check=_cli_password),
    Rule("password", r"sshpass\b[^\n|;&]{0,100}?\s-p\s*['\"]?([^\s'\"]{3,256})", ("sshpass",), check=_cli_password),
    Rule("password", r"(?i)\s--(?P<flag>password|passwd|pass|db-password)\s+['\"]?([^\s'\"]{3,256})",
         ("--pass", "--db-password"), check=_flag_secret, back=1),
    Rule("secret", r"(?i)\s--(?P<flag>token|api-key|apikey|secret|client-secret|access-token|auth-token)\s+['\"]?"
        r"([^\s'\"]{3,256})", ("--token", "--api-key", "--apikey", "--secret", "--client-secret", "--access-token",
        "--auth-token"), check=_flag_secret, back=1),
    # Env files and exports: `STRIPE_KEY=…`, `DB_PASS=…` (names in capitals, a generated value).
    Rule("secret", r"_(?:KEY|PASS|PWD|SECRET|TOKEN)S?\s*=\s*['\"]?([A-Za-z0-9_+/=.~-]{12,512})",
         ("_KEY", "_PASS", "_PWD", "_SECRET", "_TOKEN"), check=_assigned_secret, caseless=False),
    Rule("auth-header", r"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token|bot|digest|apikey|sso-key)\s+)?"
        r"([A-Za-z0-9._~+/=:-]{8,})", ("authorization",), check=_credential),
    Rule("auth-header", r"(?i)(?:api-key|auth-token|access-token|private-token)[\"']?\s*:\s*[\"']?"
        r"([A-Za-z0-9._~+/=-]{12,})",
        ("api-key", "auth-token", "access-token", "private-token"), check=_credential),
    Rule("auth-header", r"(?i)bearer\s+([A-Za-z0-9._~+/=-]{16,})", ("bearer",), check=_credential),
    Rule("password", r"(?i)(?:password|passwd|passphrase|(?<![a-z0-9])pwd)" + _KEY_TAIL + _OP +
        r"\s*(?:\"(?P<q1>[^\"\n]{3,256})\"|'(?P<q2>[^'\n]{3,256})'|(?P<bare>[^\s\"'`,;&<>(){}\[\]]{3,256}))",
        ("password", "passwd", "passphrase", "pwd"), check=_password_value),
    Rule("secret", r"(?i)(?:secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|credential)s?"
        + _KEY_TAIL + _OP + r"\s*[\"'`]?([A-Za-z0-9_+/=.~-]{12,512})",
        ("secret", "token", "api_key", "api-key", "apikey", "access_key", "access-key", "accesskey",
         "private_key", "private-key", "privatekey", "auth_key", "authkey", "credential"), check=_assigned_secret),
)

SECRET_FIELD = re.compile(
    r"(?i)^[a-z0-9_.-]{0,32}(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth[_-]?key|credentials?)$")
"""A structured field whose string value is a secret if it looks generated (`{"api_key": "…"}`)."""

PASSWORD_FIELD = re.compile(r"(?i)(?:password|passwd|passphrase)$")


@lru_cache(maxsize=4096)
def field_kind(key: str) -> str | None:
    """What a field named `key` holds: "password", "secret" or None (keys repeat: cached)."""
    if len(key) > 64 or not SECRET_FIELD.match(key):
        return None
    return "password" if PASSWORD_FIELD.search(key) else "secret"


def field_secret(key: str, value: str) -> str | None:
    """The kind a field's value is redacted as, or None: a password field's literal value,
    a secret-named field's high-entropy value."""
    kind = field_kind(key) if len(value) >= 4 else None
    if kind is None:
        return None
    if kind == "password":
        return None if _placeholder(value) or value.lower() in _CODE_WORDS or " " in value else "password"
    if len(value) >= 12 and not _placeholder(value) and _high_entropy(value):
        return "secret"
    return None
