"""The address a live class gives students' phones (explainer/core/addresses.py), with the interface list and the
default route mocked, and the command line that serves the room (`--classroom`, `--host ::1`).

No test sends anything to this machine's own network address: the listening sockets are read from the OS's
own tables (psutil), and the only server started here listens on loopback.
"""

from __future__ import annotations

import socket
import sys
import types

import psutil
import pytest

from explainer.core import addresses as at
from explainer.launch import class_banner, main, parse_args

SCHOOL = {  # a laptop on a school's wifi, with docker and a VPN-less bridge, as psutil lists them
    "lo": ["127.0.0.1", "::1"],
    "docker0": ["172.17.0.1"],
    "br-5f2a": ["172.18.0.1"],
    "veth12": ["fe80::1%veth12"],
    "eth0": ["169.254.10.20", "fe80::aa%eth0"],  # no cable: only a link-local address
    "wlan0": ["10.12.0.57", "2001:db8:1::57", "fe80::57%wlan0"],
    "wlan1": ["192.168.4.2"],
}


def test_the_default_route_comes_first_and_loopback_link_local_and_bridges_are_left_out():
    found = at.choose(SCHOOL, "0.0.0.0", "192.168.4.2")
    assert [(a.ip, a.interface, a.default) for a in found] == [("192.168.4.2", "wlan1", True),
                                                               ("10.12.0.57", "wlan0", False)]
    assert found[0].label == "192.168.4.2 (wlan1, the default route)"


def test_every_interface_in_ipv6_adds_the_global_ipv6_addresses_after_the_ipv4_ones():
    found = at.choose(SCHOOL, "[::]", "10.12.0.57")
    assert [a.ip for a in found] == ["10.12.0.57", "192.168.4.2", "2001:db8:1::57"]
    assert found[-1].host == "[2001:db8:1::57]"


@pytest.mark.parametrize("bind", [None, "127.0.0.1", "localhost", "::1", "[::1]", "127.0.1.1"])
def test_a_server_on_this_computer_only_offers_no_address(bind):
    assert at.is_local_only(bind)
    assert at.choose(SCHOOL, bind, "10.12.0.57") == ()


def test_a_server_bound_to_one_address_offers_that_one():
    assert [a.ip for a in at.choose(SCHOOL, "10.12.0.57", "192.168.4.2")] == ["10.12.0.57"]
    assert [(a.ip, a.interface) for a in at.choose({}, "203.0.113.9", None)] == [("203.0.113.9", "as bound")]


def test_on_the_network_the_link_never_says_127_0_0_1_even_when_the_teacher_opened_127_0_0_1():
    found = at.reach("0.0.0.0", 7860, "http://127.0.0.1:7860/class", at.choose(SCHOOL, "0.0.0.0", "10.12.0.57"),
                     "python app.py --classroom")
    assert [base for _, base in found.bases] == ["http://10.12.0.57:7860", "http://192.168.4.2:7860"]
    assert (found.local_only, found.note) == (False, "")
    assert at.with_base("http://127.0.0.1:7860/class?class=ABCDEF", found.bases[0][1]) == \
        "http://10.12.0.57:7860/class?class=ABCDEF"


def test_on_this_computer_only_the_page_says_so_and_gives_the_command():
    found = at.reach("127.0.0.1", 7860, "http://127.0.0.1:7860/class", (), "python app.py --classroom")
    assert (found.bases, found.local_only, found.command) == ((), True, "python app.py --classroom")
    assert found.line == ("This server listens only on this computer: phones cannot open its link. To let them in, "
                          "stop it and start it with: python app.py --classroom")
    assert at.with_base("http://127.0.0.1:7860/class?class=X", None) == "http://127.0.0.1:7860/class?class=X"


def test_a_page_reached_by_a_name_keeps_its_own_address_first():
    found = at.reach("0.0.0.0", 7860, "https://class.example.org/class", at.choose(SCHOOL, "0.0.0.0", None), "x")
    assert found.bases[0] == ("class.example.org (this page's address)", "https://class.example.org")
    assert len(found.bases) == 3


def test_a_space_and_the_setting_give_their_own_address_only():
    environ = {"SPACE_ID": "teacher/electra", "SPACE_HOST": "teacher-electra.hf.space"}
    assert at.space_base(environ) == "https://teacher-electra.hf.space"
    assert at.space_base({"SPACE_HOST": "x.hf.space"}) is None  # not on a Space without SPACE_ID
    found = at.reach("0.0.0.0", 7860, "http://127.0.0.1:7860/class", at.choose(SCHOOL, "0.0.0.0", None), "x",
                     at.space_base(environ))
    assert found.bases == (("teacher-electra.hf.space (this Space)", "https://teacher-electra.hf.space"),)
    assert at.configured_base({"ELECTRA_CLASS_URL": "http://198.51.100.7:8080/"}) == "http://198.51.100.7:8080"
    with pytest.raises(ValueError, match="write it as http://HOST:PORT"):
        at.configured_base({"ELECTRA_CLASS_URL": "198.51.100.7/class"})


@pytest.mark.parametrize("argv, command", [
    (["app.py"], "python app.py --classroom"),
    (["/home/t/electra/app.py", "--desktop"], "python app.py --desktop --classroom"),
    (["/usr/bin/electra-explainer", "--port", "8000"], "electra-explainer --classroom"),
])
def test_the_command_that_lets_phones_in_is_the_way_this_app_was_started(argv, command):
    assert at.restart_command(argv) == command


def test_the_route_default_is_read_without_sending_anything(monkeypatch):
    sent = []

    class Probe:
        def __init__(self, *args):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *args):
            return False

        def connect(self, where):
            sent.append(where)

        def getsockname(self):
            return ("10.12.0.57", 40000)

    monkeypatch.setattr(at.socket, "socket", Probe)
    assert at.route_default() == "10.12.0.57"
    assert sent == [at.ROUTE_PROBE]  # a documentation address (RFC 5737); UDP's connect sends no packet


@pytest.mark.parametrize("host, expected", [("::1", "[::1]"), ("[::1]", "[::1]"), ("::", "[::]"),
                                            ("0.0.0.0", "0.0.0.0"), ("localhost", "localhost")])
def test_an_ipv6_host_is_bracketed_as_gradio_takes_it(host, expected):
    assert parse_args(["--host", host]).host == expected


def test_classroom_and_desktop_options_are_checked(capsys):
    args = parse_args(["--classroom"])
    assert (args.classroom, args.host, args.port) == (True, None, None)
    assert parse_args(["--desktop", "--classroom"]).classroom
    with pytest.raises(SystemExit):
        parse_args(["--classroom", "--host", "127.0.0.1"])
    assert "a class needs the network" in capsys.readouterr().err


class FakeDemo:
    """explainer.ui.app's Blocks, as launch.main drives it: records what it was given."""

    def __init__(self):
        self.given, self.server_name, self.server_port = {}, None, None

    def launch(self, **options):
        self.given = options
        self.server_name, self.server_port = options.get("server_name", "127.0.0.1"), options.get("server_port", 7860)

    def block_thread(self):
        pass


@pytest.fixture
def fake_app(monkeypatch):
    demo = FakeDemo()
    monkeypatch.setitem(sys.modules, "explainer.ui.app", types.SimpleNamespace(demo=demo, LAUNCH={}))
    monkeypatch.setattr("explainer.ui.app", sys.modules["explainer.ui.app"], raising=False)
    monkeypatch.setattr(at, "interfaces", lambda: SCHOOL)
    monkeypatch.setattr(at, "route_default", lambda: "10.12.0.57")
    monkeypatch.delenv("SPACE_ID", raising=False)
    monkeypatch.delenv("ELECTRA_CLASS_URL", raising=False)
    monkeypatch.setattr(sys, "argv", ["app.py"])
    return demo


def test_classroom_serves_every_interface_and_prints_the_students_link(fake_app, capsys):
    assert main(["--classroom"]) == 0
    assert (fake_app.given["server_name"], fake_app.given["server_port"]) == ("0.0.0.0", 7860)
    assert capsys.readouterr().out.splitlines() == [
        "Live class: students join at http://10.12.0.57:7860/class  (10.12.0.57 (wlan0, the default route))",
        "  or http://192.168.4.2:7860/class  (192.168.4.2 (wlan1))",
        "The teacher starts the class at http://127.0.0.1:7860/class"]


def test_plain_launch_stays_on_this_computer_and_says_how_to_let_phones_in(fake_app, capsys):
    assert main([]) == 0
    assert "server_name" not in fake_app.given
    assert capsys.readouterr().out == ("Live class: This server listens only on this computer: phones cannot open its "
                                       "link. To let them in, stop it and start it with: python app.py --classroom\n")
    assert class_banner("[::1]", 7000, ["app.py"]).endswith("python app.py --classroom")


def test_a_server_on_ipv6_loopback_starts_and_listens_there():
    """`--host ::1` used to crash at launch (gradio built http://::1:PORT); bracketed, it serves, and the OS's own
    table of listening sockets shows it on ::1 alone."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    import gradio as gr

    with gr.Blocks() as demo:
        gr.Markdown("hello")
    host = parse_args(["--host", "::1"]).host
    try:
        demo.launch(server_name=host, server_port=None, prevent_thread_lock=True, quiet=True)
    except OSError as error:
        pytest.skip(f"cannot listen on ::1 here ({error})")
    try:
        listening = {c.laddr.ip for c in psutil.net_connections("inet")
                     if c.status == psutil.CONN_LISTEN and c.laddr.port == demo.server_port}
        assert listening == {"::1"}
        assert demo.local_url == f"http://[::1]:{demo.server_port}/"
    finally:
        demo.close()


def test_the_teachers_card_says_why_phones_cannot_join_and_the_choice_shows_only_with_several_addresses():
    from explainer.render.live_class.card import links_card_html
    from explainer.ui.live_class.address import allowed, chooser_update

    local = at.reach("127.0.0.1", 7860, "http://127.0.0.1:7860/class", (), "python app.py --classroom")
    html = links_card_html("ABCDEF", "http://127.0.0.1:7860/class?class=ABCDEF", "v", local.note, local.command)
    assert ('id="class-address-note"' in html and "phones cannot open its link" in html
            and "<code>python app.py --classroom</code>" in html)
    assert 'id="class-address-note"' not in links_card_html("ABCDEF", "http://10.12.0.57:7860/class", "v")
    several = at.reach("0.0.0.0", 7860, "", at.choose(SCHOOL, "0.0.0.0", "10.12.0.57"), "x")
    update = chooser_update(several, "http://192.168.4.2:7860")
    assert (update["visible"], update["value"], len(update["choices"])) == (True, "http://192.168.4.2:7860", 2)
    assert chooser_update(local)["visible"] is False
    assert allowed(several, "http://evil.example:80") == "http://10.12.0.57:7860"  # only what the server offers


def test_the_desktop_window_serves_the_room_with_classroom_and_opens_itself_at_127_0_0_1(fake_app, monkeypatch,
                                                                                           tmp_path, capsys):
    from explainer import desktop

    opened = []
    webview = types.SimpleNamespace(screens=[], settings={}, start=lambda **kw: None,
                                    create_window=lambda title, url, **kw: opened.append(url) or types.SimpleNamespace(
                                        events=types.SimpleNamespace(before_show=None)))
    monkeypatch.setitem(sys.modules, "webview", webview)
    races = types.SimpleNamespace(MANAGER=types.SimpleNamespace(job=None))
    monkeypatch.setitem(sys.modules, "explainer.ui.races", races)
    monkeypatch.setattr("explainer.ui.races", races, raising=False)
    fake_app.close = lambda: None
    monkeypatch.setattr(desktop, "LINUX", False)
    monkeypatch.setattr(sys, "argv", ["app.py", "--desktop", "--classroom"])
    instance = desktop.SingleInstance(tmp_path)
    assert desktop._serve_in_window(instance, 8123, classroom=True) == 0
    assert (fake_app.given["server_name"], fake_app.given["server_port"]) == ("0.0.0.0", 8123)
    assert opened == ["http://127.0.0.1:8123/"]  # the window itself: this computer
    out = capsys.readouterr().out
    assert "electra-explainer: Live class: students join at http://10.12.0.57:8123/class" in out
    assert desktop._serve_in_window(instance, 8124) == 0  # without --classroom: this computer only, and the command
    assert fake_app.given["server_name"] == "127.0.0.1"
    assert "start it with: python app.py --desktop --classroom" in capsys.readouterr().out


def test_the_teachers_pick_is_kept_in_the_browser_and_one_this_computer_lost_is_passed_over(fake_app, tmp_path,
                                                                                          monkeypatch):
    """"Students join at": the teacher's pick goes to the browser's storage, and the page opened again (a reload:
    the stored pick comes back with the page's load) shows it; a pick of an address this computer no longer has is
    dropped quietly for the default."""
    from explainer.lesson.live_class import session
    from explainer.core.live_class.store import ClassStore
    from explainer.ui.live_class import page, teacher

    monkeypatch.setattr(session, "_store", ClassStore(tmp_path))
    new = session.default_store().create_class(1, 2)
    fake_app.server_name, fake_app.server_port = "0.0.0.0", 7860
    who, here = {"code": new.info.code, "token": new.teacher_key}, "http://127.0.0.1:7860/class"
    picked = teacher.choose_address(fake_app, who, "http://192.168.4.2:7860", here)
    assert picked["address_pick"] == "http://192.168.4.2:7860" and "192.168.4.2:7860/class?class=" in picked["card"]
    assert "address_pick" not in teacher.choose_address(fake_app, who, "http://evil.example:80", here)

    def reload(stored):
        request = types.SimpleNamespace(query_params={"class": new.info.code, "teach": "1"})
        return page.open_page(fake_app, here, {}, {new.info.code: new.teacher_key}, stored, request)

    assert reload("http://192.168.4.2:7860")["address"]["value"] == "http://192.168.4.2:7860"
    for gone in ("http://192.168.9.9:7860", "", None):  # moved to another network; nothing stored yet
        opened = reload(gone)
        assert opened["address"]["value"] == "http://10.12.0.57:7860" and opened["message"] == ""
        assert "address_pick" not in opened  # the storage is only written by the teacher's own choice
