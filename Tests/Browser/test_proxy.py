"""`picturebook serve --edit` behind nginx with TLS, as Documentation/Editing.md tells an admin to run it.

The nginx server blocks are read out of Editing.md itself (its ```nginx block), so the documented
configuration is the one tested; only the ports and certificate paths are changed, and the test
fails if any of those lines is no longer in the document. nginx runs unprivileged-style from a
temporary prefix with a self-signed certificate made here with openssl. Checks: sign-in over
HTTPS, the session cookie's `Secure; HttpOnly; SameSite=Strict`, a save with the CSRF token and
If-Match, the same save refused without the token, and plain HTTP answered with a redirect to HTTPS
that never reaches the server (the journal does not grow).

nginx comes from Tools/setup.sh --browser (Debian `nginx-light`); without it the test is skipped.
"""
import http.client
import json
import os
import pathlib
import re
import shutil
import socket
import ssl
import subprocess
import time

import pytest

from conftest import ROOT

HOST = "books.example.org"
KITE = "salmas-red-kite"
PASSWORD = "proxy test password 7"


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _documented_config():
    text = (ROOT / "Documentation" / "Editing.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```nginx\n(.*?)```", text, re.S)
    assert len(blocks) == 1, f"Editing.md should have exactly one ```nginx block, has {len(blocks)}"
    return blocks[0]


def _substitute(config, replacements):
    for old, new in replacements:
        assert config.count(old) == 1, f"Editing.md's nginx block no longer has '{old}' exactly once"
        config = config.replace(old, new)
    return config


def _wait_port(port, proc, what, log):
    for _ in range(300):
        if proc.poll() is not None:
            pytest.fail(f"{what} exited: {pathlib.Path(log).read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"{what} did not listen on {port}: {pathlib.Path(log).read_text()}")


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not nginx:
        pytest.skip("nginx is not installed (Tools/setup.sh --browser installs Debian's nginx-light)")
    openssl = shutil.which("openssl")
    if not openssl:
        pytest.skip("openssl is not installed")
    binary = os.environ.get("PICTUREBOOK_BIN") or str(ROOT / ".build" / "debug" / "picturebook")
    if not os.access(binary, os.X_OK):
        pytest.skip(f"no picturebook binary at {binary}")
    tmp = tmp_path_factory.mktemp("proxy")
    books = tmp / "books"
    books.mkdir()
    shutil.copytree(ROOT / "Books" / KITE, books / KITE)
    r = subprocess.run([binary, "users", "add", "carol", "--role", "editor", "--library", str(books), "--password-stdin"],
                       input=PASSWORD + "\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr

    backend, tls, plain = _free_port(), _free_port(), _free_port()
    log = tmp / "server.log"
    server = subprocess.Popen([binary, "serve", str(books), "--edit", "--port", str(backend), "--cache", str(tmp / "cache"),
                               "--no-warm", "--allowed-host", HOST, "--secure-cookies"],
                              stdout=open(log, "w"), stderr=subprocess.STDOUT)
    procs = [server]
    try:
        _wait_port(backend, server, "picturebook serve", log)
        cert, key = tmp / "cert.pem", tmp / "key.pem"
        r = subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={HOST}",
                            "-addext", f"subjectAltName=DNS:{HOST}", "-keyout", str(key), "-out", str(cert)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        servers = _substitute(_documented_config(), [
            ("listen 443 ssl;", f"listen 127.0.0.1:{tls} ssl;"),
            ("listen 80;", f"listen 127.0.0.1:{plain};"),
            (f"/etc/letsencrypt/live/{HOST}/fullchain.pem", str(cert)),
            (f"/etc/letsencrypt/live/{HOST}/privkey.pem", str(key)),
            ("http://127.0.0.1:8080;", f"http://127.0.0.1:{backend};"),
        ])
        prefix = tmp / "nginx"
        prefix.mkdir()
        # Everything nginx writes goes under the prefix; as root its workers would switch to
        # 'nobody', who cannot write there, so they stay the test's user.
        user = "user root;\n" if os.geteuid() == 0 else ""
        conf = prefix / "nginx.conf"
        conf.write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {prefix}/nginx.pid;\nerror_log {prefix}/error.log;\n"
            "events { worker_connections 64; }\n"
            f"http {{\n  access_log {prefix}/access.log;\n  client_body_temp_path {prefix}/body;\n"
            f"  proxy_temp_path {prefix}/proxy;\n  fastcgi_temp_path {prefix}/fastcgi;\n  uwsgi_temp_path {prefix}/uwsgi;\n"
            f"  scgi_temp_path {prefix}/scgi;\n{servers}\n}}\n")
        nlog = tmp / "nginx.log"
        proxy = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(conf), "-e", str(prefix / "error.log")],
                                 stdout=open(nlog, "w"), stderr=subprocess.STDOUT)
        procs.append(proxy)
        _wait_port(tls, proxy, "nginx", prefix / "error.log")
        _wait_port(plain, proxy, "nginx", prefix / "error.log")
        yield {"tls": tls, "plain": plain, "cert": str(cert), "books": books}
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _https(ctx):
    tls_context = ssl.create_default_context(cafile=ctx["cert"])
    # The certificate names books.example.org; the connection goes to 127.0.0.1 with that name
    # for SNI and verification, as a browser resolving the name to this machine would.
    conn = http.client.HTTPSConnection("127.0.0.1", ctx["tls"], context=tls_context, timeout=60)
    conn.sock = tls_context.wrap_socket(socket.create_connection(("127.0.0.1", ctx["tls"]), timeout=60), server_hostname=HOST)
    return conn


def _request(conn, method, path, body=None, headers=None):
    h = {"Host": HOST, **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        h["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=h)
    r = conn.getresponse()
    return r.status, r.headers, r.read()


def _journal_lines(books):
    p = books / KITE / ".picturebook" / "journal.jsonl"
    return len(p.read_text().splitlines()) if p.exists() else 0


def test_sign_in_and_save_over_https_behind_nginx(proxied):
    conn = _https(proxied)
    st, headers, body = _request(conn, "POST", "/api/session", {"name": "carol", "password": PASSWORD})
    assert st == 200, body
    cookie = headers["Set-Cookie"]
    attrs = [a.strip() for a in cookie.split(";")]
    assert attrs[0].startswith("pb_session=") and len(attrs[0]) > len("pb_session=") + 20, cookie
    for a in ("Secure", "HttpOnly", "SameSite=Strict"):
        assert a in attrs, f"cookie lacks {a}: {cookie}"
    csrf = json.loads(body)["csrf"]
    auth = {"Cookie": attrs[0]}

    st, headers, body = _request(conn, "GET", f"/api/edit/books/{KITE}", headers=auth)
    assert st == 200, body
    doc = json.loads(body)
    n = next(i + 1 for i, p in enumerate(doc["book"]["pages"]) if p.get("textBoxes"))
    page = doc["book"]["pages"][n - 1]
    page["textBoxes"][0].setdefault("text", {})["en"] = "Saved through nginx over TLS"
    before = _journal_lines(proxied["books"])

    # Without the CSRF token the proxy passes the request on and the server refuses it.
    st, _, body = _request(conn, "PUT", f"/api/edit/books/{KITE}/pages/{n}", page, {**auth, "If-Match": f'"{doc["revision"]}"'})
    assert st == 403, body
    st, headers, body = _request(conn, "PUT", f"/api/edit/books/{KITE}/pages/{n}", page,
                                 {**auth, "If-Match": f'"{doc["revision"]}"', "X-CSRF-Token": csrf})
    assert st == 200, body
    assert _journal_lines(proxied["books"]) == before + 1
    # The 200 comes after the journal fsync: a read right after it shows the save, and book.json
    # is written just behind the answer.
    st, _, body = _request(conn, "GET", f"/api/edit/books/{KITE}", headers=auth)
    assert st == 200, body
    assert json.loads(body)["book"]["pages"][n - 1]["textBoxes"][0]["text"]["en"] == "Saved through nginx over TLS"
    deadline = time.monotonic() + 30
    while True:
        stored = json.loads((proxied["books"] / KITE / "book.json").read_text(encoding="utf-8"))
        if stored["pages"][n - 1]["textBoxes"][0]["text"].get("en") == "Saved through nginx over TLS" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert stored["pages"][n - 1]["textBoxes"][0]["text"]["en"] == "Saved through nginx over TLS"

    # The server saw the proxy's X-Forwarded-Proto: signing out clears a Secure cookie.
    st, headers, _ = _request(conn, "DELETE", "/api/session", headers={**auth, "X-CSRF-Token": csrf})
    assert st == 204 and "Secure" in headers["Set-Cookie"] and "Max-Age=0" in headers["Set-Cookie"]


def test_plain_http_is_redirected_and_never_reaches_the_editing_api(proxied):
    before = _journal_lines(proxied["books"])
    conn = http.client.HTTPConnection("127.0.0.1", proxied["plain"], timeout=60)
    for method, path, body in [("POST", "/api/session", {"name": "carol", "password": PASSWORD}),
                               ("GET", f"/api/edit/books/{KITE}", None),
                               ("PUT", f"/api/edit/books/{KITE}/pages/1", {"image": "x"})]:
        st, headers, data = _request(conn, method, path, body)
        assert st == 301, f"{method} {path} over plain HTTP answered {st}: {data[:200]}"
        assert headers["Location"] == f"https://{HOST}{path}"
        assert "Set-Cookie" not in headers
    assert _journal_lines(proxied["books"]) == before
