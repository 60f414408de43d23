"""Test sites for the crawl benchmark: N sites made of real pages, each on its own loopback address.

Linux routes all of 127.0.0.0/8 to the loopback interface, so site ``i``
listens on ``127.0.{1 + i // 254}.{1 + i % 254}`` and its host (its site key)
differs from every other site's, as on a broad crawl. A site's pages
``p0.html`` .. ``pN.html`` are real pages (the example project's, then those
of the data sets given) with a navigation block linking the site's pages and
a footer added at the end of the body, so the crawl finds them and site
learning finds a template. A page's bytes depend only on its source page and
the number of pages per site, so the sites share each file by hard links:
10,000 sites take the disk space of the distinct pages.

``serve`` runs nginx (``apt-get install nginx-light``) as a child process with
a generated configuration in the sites' directory, listening only on the
sites' addresses; without nginx, a Python asyncio server in a child process
does the same (slower, but it is not the crawl's bottleneck below a few
hundred pages/s).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

#: The pages bundled with the package's example project: always there.
EXAMPLE_PAGES = Path(__file__).resolve().parents[3] / "example_project" / "site"
#: A real data set's pages, used after the example's when present (WCXB layout).
SHARED_DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "wcxb-dev"
MAX_SITES = 254 * 255


def host(i: int) -> str:
    """The loopback address of site ``i``."""
    if not 0 <= i < MAX_SITES:
        raise ValueError(f"site index {i} out of 0..{MAX_SITES - 1}")
    return f"127.0.{1 + i // 254}.{1 + i % 254}"


def real_pages(data_dirs: list[Path]) -> list[Path]:
    """The source pages: the example project's, then each data set's ``html/*.html[.gz]``."""
    pages = sorted(EXAMPLE_PAGES.rglob("*.html"))
    for d in data_dirs:
        pages += sorted((d / "html").glob("*.html*")) if (d / "html").is_dir() else []
    return pages


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.suffix == ".gz" else data


def _with_site_links(html: bytes, page: int, pages: int, copies: int = 1,
                     partner: int | None = None) -> bytes:
    nav = "".join(f'<li><a href="{name}">Page {k + 1} of this site</a></li>'
                  for k in range(pages) for name in page_names(k, copies))
    block = (f'<nav class="bench-site"><ul>{nav}</ul></nav><footer class="bench-site"><p>'
             f"Page {page + 1} of {pages}. This benchmark site is made of real pages; every "
             "page of it carries this footer and the navigation above.</p></footer>").encode()
    if partner is not None:  # a syndicated copy: the partner site's own chrome around it
        block = (f'<aside class="partner"><h3>Republished by partner site {partner}</h3><p>'
                 f"This article first appeared elsewhere and is shown here under licence. "
                 f"Partner site {partner} brings you stories from around the web every day; "
                 f'<a href="p0.html">subscribe</a> to read more.</p></aside>').encode() + block
    end = html.lower().rfind(b"</body>")
    return html[:end] + block + html[end:] if end >= 0 else html + block


def page_names(page: int, copies: int = 1) -> list[str]:
    """The file names one page is served under: ``p3.html``, then ``p3-2.html``, ``p3-3.html``..."""
    return [f"p{page}.html"] + [f"p{page}-{c}.html" for c in range(2, copies + 1)]


def source_of(site: int, page: int, pages: int, count: int, syndicate: bool = False) -> int:
    """Which of ``count`` source pages page ``page`` of site ``site`` is made from. With
    ``syndicate``, the first page of each odd site is its even neighbour's first page."""
    if syndicate and site % 2 and page == 0:
        site -= 1
    return (site * pages + page) % count


def build(root: Path, sites: int, pages: int, sources: list[Path], *, copies: int = 1,
          syndicate: bool = False) -> list[str]:
    """Write ``sites`` sites of ``pages`` pages under ``root/<address>/``; return their hosts.

    ``copies``: each page is served under that many names (``page_names``),
    one file; ``syndicate``: the first page of each odd site is that of the
    site before it, with chrome of its own added (``source_of``).
    """
    if not sources:
        raise ValueError("no source pages")
    shared = root / "_pages"
    shared.mkdir(parents=True, exist_ok=True)
    hosts = []
    for i in range(sites):
        site = root / host(i)
        site.mkdir(exist_ok=True)
        for j in range(pages):
            n = source_of(i, j, pages, len(sources), syndicate)
            partner = i if syndicate and i % 2 and j == 0 else None
            tag = "" if partner is None else f"-partner{i}"
            unique = shared / f"{n}-{j}-of-{pages}x{copies}{tag}.html"
            if not unique.exists():
                unique.write_bytes(_with_site_links(_read(sources[n]), j, pages, copies, partner))
            for name in page_names(j, copies):
                target = site / name
                if not target.exists():
                    os.link(unique, target)
        hosts.append(host(i))
    return hosts


def copy_groups(hosts: list[str], pages: int, sources: list[Path], *, copies: int = 1,
                syndicate: bool = False) -> dict[str, int]:
    """``host/name`` of every page ``build`` wrote -> the first of its source's byte-identical
    twins (a data set may hold one page twice): pages of one group are copies of each other."""
    first: dict[bytes, int] = {}
    twin = [first.setdefault(hashlib.sha256(_read(path)).digest(), n)
            for n, path in enumerate(sources)]
    return {f"{h}/{name}": twin[source_of(i, j, pages, len(sources), syndicate)]
            for i, h in enumerate(hosts) for j in range(pages) for name in page_names(j, copies)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NGINX_CONF = """daemon off;
{user}worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
worker_rlimit_nofile {files};
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    default_type text/html;
    keepalive_requests 10000;
    server {{
{listen}
        root {root}/$server_addr;
    }}
}}
"""

PY_SERVER = r"""
import asyncio, sys
from pathlib import Path
root, port, hosts = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]

async def handle(reader, writer):
    addr = writer.get_extra_info("sockname")[0]
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode("latin-1").split("?")[0].lstrip("/")
            file = root / addr / path
            if path and "/" not in path and file.is_file():
                body, status = file.read_bytes(), b"200 OK"
            else:
                body, status = b"not found", b"404 Not Found"
            writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, IndexError):
        pass
    finally:
        writer.close()

async def main():
    for h in hosts:
        await asyncio.start_server(handle, h, port)
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def _wait_until_up(address: str, port: int, proc: subprocess.Popen, what: str,
                   log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            said = log.read_text(errors="replace").strip()[-500:]
            raise RuntimeError(f"{what} exited with status {proc.returncode}: {said}")
        try:
            socket.create_connection((address, port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not start listening on {address}:{port}")


@contextmanager
def serve(root: Path, hosts: list[str], *, use_nginx: bool = True) -> Iterator[tuple[int, str]]:
    """Serve ``root/<address>/`` on every address; yield (port, server name)."""
    port = free_port()
    nginx = shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")
    log = open(root / "server.log", "wb")
    if use_nginx and nginx:
        conf = root / "nginx.conf"
        listen = "\n".join(f"        listen {h}:{port};" for h in hosts)
        # Started as root, nginx's worker would run as nobody, who cannot read a private
        # temporary directory: it runs as the user who started it instead.
        user = "user root;\n" if os.geteuid() == 0 else ""
        # Every listening socket takes one of the worker's connections.
        conf.write_text(NGINX_CONF.format(tmp=root, root=root, listen=listen, user=user,
                                          files=2 * len(hosts) + 8192,
                                          connections=len(hosts) + 4096))
        cmd = [nginx, "-p", str(root), "-c", str(conf), "-e", str(root / "error.log")]
        name = "nginx"
    else:
        cmd, name = [sys.executable, "-c", PY_SERVER, str(root), str(port), *hosts], "python"
    proc = subprocess.Popen(cmd, stdout=log, stderr=log)
    try:
        _wait_until_up(hosts[-1], port, proc, name, root / "server.log")
        yield port, name
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
