"""Generated fake secrets of every kind the issue names, built from random parts at test
time (never real ones): each entry is (kind, the text to plant, the secret part that must vanish)."""

from __future__ import annotations

import base64
import json
import random
import string

UP = string.ascii_uppercase
ALNUM = string.ascii_letters + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def fake_secrets(seed: int = 17) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    out: list[tuple[str, str, str]] = []

    def add(kind: str, text: str, secret: str) -> None:
        out.append((kind, text, secret))

    akid = "AKIA" + "".join(rng.choice(UP + "234567") for _ in range(16))
    add("aws-access-key", f"export AWS_ACCESS_KEY_ID={akid}", akid)
    aws_secret = _r(rng, B64, 40)
    add("aws-secret-key", f"aws_secret_access_key = {aws_secret}", aws_secret)
    pem_body = "\n".join(_r(rng, B64, 64) for _ in range(6))
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----"
    add("private-key", f"cat id_rsa\n{pem}\n", pem_body.splitlines()[2])
    gcp_key_id = "".join(rng.choice("0123456789abcdef") for _ in range(40))
    gcp_body = _r(rng, B64, 64)
    sa = {"type": "service_account", "project_id": "demo-proj", "private_key_id": gcp_key_id,
          "private_key": f"-----BEGIN PRIVATE KEY-----\n{gcp_body}\n-----END PRIVATE KEY-----\n",
          "client_email": "svc@demo-proj.iam.gserviceaccount.com"}
    add("gcp-service-account", json.dumps(sa, indent=2), gcp_key_id)
    add("gcp-service-account", json.dumps(sa), gcp_body)
    gapi = "AIza" + _r(rng, URLSAFE, 35)
    add("gcp-api-key", f"GOOGLE_API_KEY is {gapi}", gapi)
    azure = _r(rng, B64, 86) + "=="
    add("azure-storage-key", f"DefaultEndpointsProtocol=https;AccountName=demo;AccountKey={azure};"
        "EndpointSuffix=core.windows.net", azure[:40])
    az_secret = _r(rng, ALNUM, 3) + str(rng.randint(0, 9)) + "Q~" + _r(rng, ALNUM + "_~.-", 34)
    add("azure-client-secret", f'client secret "{az_secret}"', az_secret)
    ghp = "ghp_" + _r(rng, ALNUM, 36)
    add("github-token", f"git clone https://{ghp}@github.com/acme/app.git", ghp)
    pat = "github_pat_" + _r(rng, ALNUM, 22) + "_" + _r(rng, ALNUM, 59)
    add("github-token", f"GH token: {pat}", pat)
    glpat = "glpat-" + _r(rng, URLSAFE, 20)
    add("gitlab-token", f"curl --header 'PRIVATE-TOKEN: {glpat}' https://gitlab.example.com/api", glpat)
    xox = f"xoxb-{rng.randint(10**11, 10**12)}-{rng.randint(10**11, 10**12)}-{_r(rng, ALNUM, 24)}"
    add("slack-token", f"SLACK_BOT_TOKEN={xox}", xox)
    hook = f"https://hooks.slack.com/services/T{_r(rng, UP + '0123456789', 8)}/B{_r(rng, UP + '0123456789', 10)}/{_r(rng, ALNUM, 24)}"
    add("slack-webhook", f"post to {hook}", hook.rsplit("/", 1)[1])
    stripe = "sk_live_" + _r(rng, ALNUM, 24)
    add("stripe-key", f"stripe.api_key = '{stripe}'", stripe)
    openai = "sk-proj-" + _r(rng, URLSAFE, 48)
    add("openai-key", f"OPENAI_API_KEY={openai}", openai)
    openai_old = "sk-" + _r(rng, ALNUM, 20) + "T3BlbkFJ" + _r(rng, ALNUM, 20)
    add("openai-key", f"my key is {openai_old} please use it", openai_old)
    anthropic = "sk-ant-api03-" + _r(rng, URLSAFE, 93) + "AA"
    add("anthropic-key", f"ANTHROPIC_API_KEY={anthropic}", anthropic)
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": _r(rng, ALNUM, 10), "iat": rng.randint(10**9, 2 * 10**9)}).encode())
    jwt = f"{header}.{payload}.{_r(rng, URLSAFE, 43)}"
    add("jwt", f"the session cookie was {jwt}", jwt)
    bearer = _r(rng, URLSAFE, 40)
    add("auth-header", f'curl -H "Authorization: Bearer {bearer}" https://api.example.com/v1/me', bearer)
    url_pw = _r(rng, ALNUM, 14)
    add("url-password", f"DATABASE_URL=postgres://app:{url_pw}@db.internal:5432/app", url_pw)
    pw = "".join(rng.choice(string.ascii_lowercase) for _ in range(6)) + str(rng.randint(10, 99)) + "!"
    add("password", f"password={pw}", pw)
    pw2 = _r(rng, ALNUM, 12)
    add("password", f'db_password: "{pw2}"', pw2)
    token = _r(rng, "0123456789abcdef", 40)
    add("secret", f"token={token}", token)
    client_secret = _r(rng, ALNUM + "_-", 32)
    add("secret", f'CLIENT_SECRET="{client_secret}"', client_secret)
    return out


def private_span(seed: int = 17) -> tuple[str, str]:
    """A prompt with a <private> span, and a word of the span that must vanish."""
    word = "privword" + _r(random.Random(seed), string.ascii_lowercase + string.digits, 12)
    return f"keep this <private>my diary: {word}</private> and this", word
