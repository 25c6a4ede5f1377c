"""A class the room can join: the app started as the class documentation says (`python app.py --classroom`), the
teacher's page opened at 127.0.0.1 as a teacher's own browser would, and the QR code read back from a screenshot
by a QR library (zxing-cpp). The students' address is not loopback, the server listens on it (the OS's own table
of listening sockets), and with its host swapped for 127.0.0.1 it serves the student's join page: nothing is sent
to this machine's network address itself.

On a machine without a network address a phone could open (a sandbox with loopback only), the address comes
from ELECTRA_CLASS_URL, the setting for an address this computer cannot know, and is checked the same way.
"""

from __future__ import annotations

import io
import ipaddress
import os
import subprocess
import sys
import time
from urllib.parse import urlsplit, urlunsplit

import psutil
import pytest
from conftest import wait_for_text

from explainer.core import addresses
from explainer.desktop import free_port
from training.project import PROJECT

pytestmark = [pytest.mark.browser, pytest.mark.slow]
zxingcpp = pytest.importorskip("zxingcpp")
START_S = 120  # the app's start on a busy 2-core machine


@pytest.fixture(scope="module")
def classroom_server(tiny_pair_dir, tiny_stronger_dir, tmp_path_factory):
    """`python app.py --classroom --port N` in its own process, with the tiny pair; (port, its printed lines)."""
    port = free_port()
    env = {**os.environ, "ELECTRA_MODEL": str(tiny_pair_dir), "ELECTRA_MODEL_ROOTS": str(tiny_pair_dir),
           "ELECTRA_STRONGER_GENERATOR": str(tiny_stronger_dir), "PYTHONUNBUFFERED": "1"}
    env.pop("SPACE_ID", None)
    if not addresses.machine_addresses("0.0.0.0"):
        env["ELECTRA_CLASS_URL"] = f"http://192.0.2.77:{port}"  # documentation address: nothing is sent there
    log = tmp_path_factory.mktemp("classroom") / "app.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "app.py", "--classroom", "--port", str(port)], cwd=PROJECT, env=env,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_S
        while "The teacher starts the class at" not in log.read_text() and "students join" not in log.read_text():
            assert server.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.5)
        yield port, log.read_text(), server.pid
    finally:
        server.terminate()
        server.wait(30)


def listening(pid: int, port: int) -> set[str]:
    """The addresses the process listens on at `port`, from the OS's table of sockets."""
    return {c.laddr.ip for c in psutil.Process(pid).net_connections("inet")
            if c.status == psutil.CONN_LISTEN and c.laddr.port == port}


def serves(bound: set[str], host: str) -> bool:
    version = ipaddress.ip_address(host).version
    return host in bound or ("0.0.0.0" in bound and version == 4) or "::" in bound


def test_the_qr_code_on_the_teachers_page_opens_the_class_from_a_phone(browser, classroom_server, tmp_path):
    port, printed, pid = classroom_server
    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(f"http://127.0.0.1:{port}/class")
    teacher.locator("#class-start").click()
    teacher.locator("#class-student-link").wait_for(timeout=60_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    code = teacher.locator("#class-code").first.inner_text().replace("-", "")

    from PIL import Image

    shot = teacher.locator("#class-join-card .ee-qr").screenshot()
    decoded = [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(shot)))]
    assert decoded == [link], decoded
    parts = urlsplit(decoded[0])
    host = parts.hostname
    assert not ipaddress.ip_address(host).is_loopback and parts.port == port
    assert parts.path == "/class" and parts.query == f"class={code}"
    assert f"students join at {parts.scheme}://{parts.netloc}/class" in printed  # the terminal said it first
    bound = listening(pid, port)
    assert serves(bound, host), (host, bound)
    if "ELECTRA_CLASS_URL" not in os.environ and host != "192.0.2.77":
        assert host in {ip.split("%")[0] for ips in addresses.interfaces().values() for ip in ips}
    assert teacher.locator("#class-address-note").count() == 0  # nothing to warn about: phones can open it

    phone = browser.new_page(viewport={"width": 420, "height": 900})
    phone.goto(urlunsplit((parts.scheme, f"127.0.0.1:{port}", parts.path, parts.query, "")))  # the same server
    phone.locator("#class-join").wait_for(timeout=60_000)
    assert phone.locator("#class-code-box textarea").input_value().replace("-", "") == code
    phone.locator("#class-join").click()
    wait_for_text(phone, "#class-wait-box", "You are in!")
    projector_link = teacher.locator("#class-view-link").get_attribute("href")
    assert urlsplit(projector_link).hostname == host  # the projector's link is on the same address
    shots = os.environ.get("ROOM_SCREENSHOTS")
    if shots:
        teacher.screenshot(path=f"{shots}/teacher-network-address.png", full_page=True)
        projector = browser.new_page(viewport={"width": 1920, "height": 1080})
        projector.goto(urlunsplit(("http", f"127.0.0.1:{port}", "/class", urlsplit(projector_link).query, "")))
        wait_for_text(projector, "#class-stage", "Join the class")
        projector.screenshot(path=f"{shots}/projector-lobby-network-address.png")
        assert decoded[0] in projector.locator("#class-stage").inner_text()


def decode(png: bytes) -> list[str]:
    from PIL import Image

    return [r.text for r in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))]


def test_a_teacher_chooses_among_several_addresses_and_a_local_server_says_how_to_let_phones_in(
        browser, app_url, monkeypatch):
    """The shared test server listens on 127.0.0.1: its teacher's page says so, with the command. Then, with the
    server taken for one on the network and two interfaces mocked, the teacher picks the second address and the
    links, the card's QR code and the projector preview follow, and a reload keeps the pick (nothing is sent to either
    address)."""
    from explainer.ui import app

    teacher = browser.new_page(viewport={"width": 1280, "height": 900})
    teacher.goto(app_url + "class")
    teacher.locator("#class-start").click()
    teacher.locator("#class-student-link").wait_for(timeout=60_000)
    note = teacher.locator("#class-address-note").inner_text()
    assert "listens only on this computer" in note and note.endswith("--classroom")
    assert urlsplit(teacher.locator("#class-student-link").get_attribute("href")).hostname == "127.0.0.1"

    monkeypatch.setattr(app.demo, "server_name", "0.0.0.0")
    monkeypatch.setattr(addresses, "interfaces", lambda: {"lo": ["127.0.0.1"], "docker0": ["172.17.0.1"],
                                                          "wlan0": ["10.12.0.57"], "eth1": ["192.168.4.2"]})
    monkeypatch.setattr(addresses, "route_default", lambda: "10.12.0.57")
    teacher.reload()
    wait_for_text(teacher, "#class-card", "10.12.0.57", timeout=60_000)
    assert teacher.locator("#class-address-note").count() == 0
    teacher.locator("#class-address input").click()
    options = teacher.get_by_role("option")
    assert [t.replace("✓", "").strip() for t in options.all_inner_texts()] == [
        "10.12.0.57 (wlan0, the default route)", "192.168.4.2 (eth1)"]  # docker0 and loopback left out
    options.nth(1).click()
    wait_for_text(teacher, "#class-card", "192.168.4.2", timeout=30_000)
    link = teacher.locator("#class-student-link").get_attribute("href")
    port = urlsplit(app_url).port
    assert link.startswith(f"http://192.168.4.2:{port}/class?class=")
    assert urlsplit(teacher.locator("#class-view-link").get_attribute("href")).hostname == "192.168.4.2"
    assert decode(teacher.locator("#class-join-card .ee-qr").screenshot()) == [link]
    # the projector preview: the address to type (the code is typed beside it) and the QR code with the whole link
    wait_for_text(teacher, "#class-typed-address", link.split("?", 1)[0])
    assert decode(teacher.locator("#class-stage .ee-qr").screenshot()) == [link]
    teacher.reload()  # the pick is kept in this browser's storage
    wait_for_text(teacher, "#class-card", "192.168.4.2", timeout=60_000)
    assert teacher.locator("#class-student-link").get_attribute("href") == link
    if os.environ.get("ROOM_SCREENSHOTS"):
        teacher.screenshot(path=f"{os.environ['ROOM_SCREENSHOTS']}/teacher-address-choice.png", full_page=True)
    teacher.close()
