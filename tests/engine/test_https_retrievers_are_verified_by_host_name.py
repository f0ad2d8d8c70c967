"""An HTTPS retriever is reached at its checked (pinned) address, while TLS uses its host name
for the server name and the certificate check: a certificate the trust store does not know is
refused, one issued for the host name is accepted even though the connection goes to an IP."""

import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme

from goldsmith.retrievers import http as http_retriever
from goldsmith.retrievers.http import HttpRetrieverClient, HttpRetrieverConfig
from goldsmith.retrievers.ssrf import Policy


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps(
            {"results": [{"id": "c1", "score": 1.0}], "host": self.headers["Host"]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def tls_server():
    ca = trustme.CA()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("retriever.test").configure_cert(context)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield ca, server.server_address[1]
    server.shutdown()
    server.server_close()


def client_for(port):
    config = HttpRetrieverConfig(
        url=f"https://retriever.test:{port}/search", retries=0, timeout=5.0, max_concurrency=1
    )

    def resolver(host, port):  # "retriever.test" is the test server on loopback
        assert host == "retriever.test"
        return ["127.0.0.1"]

    return HttpRetrieverClient(config, policy=Policy(allow_private=True), resolver=resolver)


def test_an_unknown_certificate_is_refused(tls_server):
    _ca, port = tls_server
    with client_for(port) as client:
        outcome = client.search("q1", "anything", 10)
    assert outcome.hits == ()
    assert outcome.error.startswith("connection error: SSLError")


def test_a_certificate_for_the_host_name_is_accepted_at_the_pinned_address(
    tls_server, tmp_path, monkeypatch
):
    ca, port = tls_server
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setattr(http_retriever, "_ca_bundle", lambda: str(bundle))
    with client_for(port) as client:
        outcome = client.search("q1", "anything", 10)
    assert outcome.error == ""
    assert [h.id for h in outcome.hits] == ["c1"]
