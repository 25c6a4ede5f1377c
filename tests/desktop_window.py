"""Drive a desktop window from outside its process, for tests/test_desktop.py: an Xvfb display, the page
inside the window through Qt's DevTools port, a close as a window manager sends it, a screenshot.

The standard library, websocket-client and Pillow (a gradio dependency, for the screenshot): Playwright's
connect_over_cdp refuses Qt's web engine ("Browser context management is not supported"), so the DevTools
protocol is spoken over a plain WebSocket here; and no window manager runs under Xvfb, so the close is the
WM_DELETE_WINDOW message a window manager's close button sends, through libX11.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import struct
import subprocess
import time
import urllib.request
from pathlib import Path

import websocket


def start_xvfb(size: str = "1366x768x24") -> tuple[subprocess.Popen, str]:
    """Xvfb on the first free display from :90 (it writes the number it took: -displayfd)."""
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", size, "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        server.kill()
        raise RuntimeError("Xvfb did not start")
    return server, f":{number}"


# --- the page, through the DevTools protocol --------------------------------------------------------

class DevTools:
    """One page's DevTools connection (a WebSocket, through websocket-client): `evaluate(js)`."""

    def __init__(self, port: int, url_prefix: str, timeout: float = 60):
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2) as response:
                    pages = [p for p in json.load(response) if p.get("url", "").startswith(url_prefix)]
                if pages:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"no page at {url_prefix} on the DevTools port {port}")
            time.sleep(0.5)
        # No Origin header: Chromium's DevTools (and so Qt's) refuses a connection from an origin it was not told of.
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=timeout,
                                                  suppress_origin=True)
        self.next_id = 0

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": "Runtime.evaluate",
                                     "params": {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}}))
        while True:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                result = reply["result"]
                if "exceptionDetails" in result:
                    raise RuntimeError(result["exceptionDetails"])
                return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> object:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {timeout:.0f} s: {expression}")
            time.sleep(0.25)

    def close(self) -> None:
        self.socket.close()


# --- the window, through libX11 ---------------------------------------------------------------------

class _ClientMessage(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong), ("message_type", ctypes.c_ulong),
                ("format", ctypes.c_int), ("data", ctypes.c_long * 5)]


class _Event(ctypes.Union):
    _fields_ = [("xclient", _ClientMessage), ("pad", ctypes.c_long * 24)]


def _x11():
    x11 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XDefaultRootWindow.restype = ctypes.c_ulong
    x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                               ctypes.POINTER(ctypes.c_ulong), ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                               ctypes.POINTER(ctypes.c_uint)]
    x11.XFetchName.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_char_p)]
    x11.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long, ctypes.POINTER(_Event)]
    x11.XFlush.argtypes = x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    x11.XFree.argtypes = [ctypes.c_void_p]
    return x11


def window_titles(display: str) -> dict[str, int]:
    """{title: window id} of the top-level windows with a title."""
    x11 = _x11()
    dpy = x11.XOpenDisplay(display.encode())
    if not dpy:
        raise RuntimeError(f"cannot open the display {display}")
    try:
        root, parent, children, count = (ctypes.c_ulong(), ctypes.c_ulong(), ctypes.POINTER(ctypes.c_ulong)(),
                                         ctypes.c_uint())
        x11.XQueryTree(dpy, x11.XDefaultRootWindow(dpy), ctypes.byref(root), ctypes.byref(parent),
                       ctypes.byref(children), ctypes.byref(count))
        found = {}
        for i in range(count.value):
            name = ctypes.c_char_p()
            if x11.XFetchName(dpy, children[i], ctypes.byref(name)) and name.value:
                found[name.value.decode(errors="replace")] = children[i]
        if children:
            x11.XFree(children)
        return found
    finally:
        x11.XCloseDisplay(dpy)


def close_window(display: str, window: int) -> None:
    """WM_DELETE_WINDOW, as a window manager's close button sends it."""
    x11 = _x11()
    dpy = x11.XOpenDisplay(display.encode())
    try:
        event = _Event()
        event.xclient.type = 33  # ClientMessage
        event.xclient.window = window
        event.xclient.message_type = x11.XInternAtom(dpy, b"WM_PROTOCOLS", False)
        event.xclient.format = 32
        event.xclient.data[0] = x11.XInternAtom(dpy, b"WM_DELETE_WINDOW", False)
        x11.XSendEvent(dpy, window, False, 0, ctypes.byref(event))
        x11.XFlush(dpy)
    finally:
        x11.XCloseDisplay(dpy)


def screenshot(display: str, path: Path) -> None:
    """The whole screen, as `xwd -root` dumps it (TrueColor, 24 or 32 bits a pixel), saved as PNG."""
    from PIL import Image

    dump = subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True, check=True).stdout
    header = struct.unpack("!25I", dump[:100])
    header_size, width, height, byte_order, bits_per_pixel, line = (header[0], header[4], header[5], header[7],
                                                                    header[11], header[12])
    colours = header[19]
    assert bits_per_pixel in (24, 32), bits_per_pixel
    start = header_size + colours * 12
    mode = {(0, 32): "BGRX", (1, 32): "XRGB", (0, 24): "BGR", (1, 24): "RGB"}[byte_order, bits_per_pixel]  # 0: LSBFirst
    image = Image.frombuffer("RGB", (width, height), dump[start:start + line * height], "raw", mode, line, 1)
    image.save(path, optimize=True)
