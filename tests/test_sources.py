"""Webcam, replay and reconnecting sources, run for real: real files written here, a real
(absent) webcam, and sources that genuinely fail."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.frames import (
    CameraLost,
    EndOfStream,
    Frame,
    FrameSource,
    SourceUnavailable,
)
from hardware.picamera import PiCameraSource
from hardware.sources import (
    ImageFolderSource,
    Reconnecting,
    VideoFileSource,
    WebcamSource,
    open_source,
    time_from_name,
)

SIZE = (64, 48)  # width, height
COLOURS = [(0, 0, 200), (0, 200, 0), (200, 0, 0), (200, 200, 0), (0, 200, 200), (128, 128, 128)]


def solid(bgr: tuple[int, int, int]) -> np.ndarray:
    return np.full((SIZE[1], SIZE[0], 3), bgr, dtype=np.uint8)


def mean_bgr(frame: Frame) -> np.ndarray:
    return frame.image.reshape(-1, 3).mean(axis=0)


def read_all(source: FrameSource) -> list[Frame]:
    frames = []
    while True:
        try:
            frames.append(source.read())
        except EndOfStream:
            return frames


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "game.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, SIZE)
    assert writer.isOpened(), "MJPG/.avi must be writable with opencv-python-headless"
    for colour in COLOURS:
        writer.write(solid(colour))
    writer.release()
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """frame1.png .. frame12 (PNG and JPEG mixed), value = 20 * number, plus a stray file."""
    path = tmp_path / "frames"
    path.mkdir()
    for n in range(1, 13):
        suffix = ".png" if n % 2 else ".jpg"
        cv2.imwrite(str(path / f"frame{n}{suffix}"), solid((20 * n, 20 * n, 20 * n)))
    (path / "notes.txt").write_text("not an image")
    return path


# --------------------------------------------------------------------------- webcam


@pytest.mark.skipif(Path("/dev/video0").exists(), reason="this machine has a camera")
def test_no_webcam_is_a_clear_error():
    with pytest.raises(SourceUnavailable, match="no camera at index 0"):
        WebcamSource(0).open()
    with pytest.raises(SourceUnavailable, match="no camera at index 0"):
        open_source("webcam:0").open()


def test_unreachable_stream_is_a_clear_error():
    source = open_source("http://127.0.0.1:9/video.mjpg")  # nothing listens on port 9
    assert isinstance(source, WebcamSource) and source.is_stream
    with pytest.raises(SourceUnavailable, match="cannot open the stream http://127.0.0.1:9"):
        source.open()


def test_reading_a_closed_webcam_is_camera_lost():
    with pytest.raises(CameraLost):
        WebcamSource(0).read()


# --------------------------------------------------------------------------- video file


def test_video_replays_every_frame_with_its_timestamps(video):
    with VideoFileSource(video) as source:
        frames = read_all(source)
        with pytest.raises(EndOfStream):
            source.read()
    assert [f.index for f in frames] == list(range(len(COLOURS)))
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    for frame, colour in zip(frames, COLOURS):
        assert frame.image.shape == (SIZE[1], SIZE[0], 3) and frame.image.dtype == np.uint8
        assert mean_bgr(frame) == pytest.approx(colour, abs=8)  # MJPG is lossy


def test_video_loops_with_timestamps_carrying_on(video):
    with VideoFileSource(video, loop=True) as source:
        frames = [source.read() for _ in range(14)]
    times = [f.timestamp for f in frames]
    assert all(a < b for a, b in zip(times, times[1:]))
    assert times[6] == pytest.approx(0.6) and times[13] == pytest.approx(1.3)
    assert mean_bgr(frames[6]) == pytest.approx(mean_bgr(frames[0]), abs=1)
    assert [f.index for f in frames] == list(range(14))


def test_video_errors_name_the_problem(tmp_path):
    with pytest.raises(SourceUnavailable, match="no such video file"):
        VideoFileSource(tmp_path / "missing.avi").open()
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"this is not a video at all")
    with pytest.raises(SourceUnavailable, match=f"cannot read the video {junk}"):
        VideoFileSource(junk).open()


def test_video_realtime_replay_keeps_the_recorded_pace(video):
    with VideoFileSource(video, realtime=True) as source:
        started = time.monotonic()
        read_all(source)
    assert time.monotonic() - started >= 0.45  # six frames at 10 fps span 0.5 s


# --------------------------------------------------------------------------- image folder


def test_folder_replays_in_name_order_numbers_by_value(folder):
    with ImageFolderSource(folder, fps=4.0) as source:
        assert source.frame_count == 12
        frames = read_all(source)
    values = [int(round(mean_bgr(f)[0])) for f in frames]
    assert values == pytest.approx([20 * n for n in range(1, 13)], abs=2)  # frame2 before frame10
    assert [f.timestamp for f in frames] == pytest.approx([n / 4.0 for n in range(12)])
    assert all(f.image.shape == (SIZE[1], SIZE[0], 3) for f in frames)


def test_folder_loops(folder):
    with ImageFolderSource(folder, fps=10.0, loop=True) as source:
        frames = [source.read() for _ in range(15)]
    assert frames[12].timestamp == pytest.approx(1.2)
    assert mean_bgr(frames[12]) == pytest.approx(mean_bgr(frames[0]))


def test_folder_timestamps_from_file_names(tmp_path):
    for ms in (500, 0, 1250):
        cv2.imwrite(str(tmp_path / f"cam_t{ms:06d}.png"), solid((ms // 10, 0, 0)))
    with ImageFolderSource(tmp_path, times_from_names=True) as source:
        frames = read_all(source)
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.5, 1.25])
    assert time_from_name(Path("shot_1699999999.jpg"), unit_s=1.0) == 1699999999.0


def test_folder_errors_name_the_problem(tmp_path):
    with pytest.raises(SourceUnavailable, match="no such folder"):
        ImageFolderSource(tmp_path / "nowhere").open()
    with pytest.raises(SourceUnavailable, match="no images in"):
        ImageFolderSource(tmp_path).open()
    cv2.imwrite(str(tmp_path / "board.png"), solid((1, 2, 3)))
    with pytest.raises(SourceUnavailable, match="no number in the file name"):
        ImageFolderSource(tmp_path, times_from_names=True).open()


def test_a_single_image_replays_as_one_frame(tmp_path):
    path = tmp_path / "board.png"
    cv2.imwrite(str(path), solid((10, 20, 30)))
    source = open_source(str(path))
    assert isinstance(source, ImageFolderSource)
    with source:
        assert len(read_all(source)) == 1


# --------------------------------------------------------------------------- reconnecting


def test_folder_that_vanishes_is_reported_and_reopened(folder, tmp_path):
    events = []
    source = Reconnecting(ImageFolderSource(folder, loop=True), first_delay_s=0.01,
                          max_delay_s=0.03, on_event=events.append)
    source.open()
    first = [source.read() for _ in range(3)]
    aside = tmp_path / "aside"
    shutil.move(folder, aside)  # the "camera" goes away between two frames

    restore = threading.Timer(0.15, lambda: shutil.move(aside, folder))
    restore.start()
    started = time.monotonic()
    frame = source.read()  # waits, without raising, until the folder is back
    waited = time.monotonic() - started
    restore.join()

    assert waited >= 0.1
    assert frame.index == 3 and [f.index for f in first] == [0, 1, 2]
    assert int(round(mean_bgr(frame)[0])) == 20  # a reopened replay starts again
    assert [e.kind for e in events] == ["lost", "back"] == [e.kind for e in source.events]
    assert events[0].message.startswith("camera lost at ") and "frame4" in events[0].message
    assert events[1].message.startswith("camera back at ")
    assert source.status == "live" and source.attempts >= 2
    assert "no such folder" in source.last_error
    source.close()
    assert source.status == "closed"


class FlakyCamera(FrameSource):
    """Delivers ``good`` frames, then fails; refuses ``refusals`` reopenings."""

    name = "flaky"

    def __init__(self, good: int, refusals: int) -> None:
        self.good, self.refusals = good, refusals
        self.opens = 0
        self.delivered = 0

    def open(self) -> None:
        self.opens += 1
        if self.opens > 1 and self.refusals > 0:
            self.refusals -= 1
            raise SourceUnavailable("flaky: not there yet")
        self.delivered = 0

    def read(self) -> Frame:
        if self.delivered >= self.good:
            raise CameraLost("flaky: cable pulled")
        self.delivered += 1
        return Frame(solid((0, 0, 0)), time.monotonic(), self.delivered - 1)

    def close(self) -> None:
        pass


def test_reconnecting_backs_off_and_counts_on():
    camera = FlakyCamera(good=2, refusals=3)
    source = Reconnecting(camera, first_delay_s=0.01, max_delay_s=0.04)
    source.open()
    frames = [source.read() for _ in range(5)]
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert camera.opens == 1 + 4 + 1  # start, 3 refusals + 1 success, lost again after 4 frames
    assert [e.kind for e in source.events] == ["lost", "back", "lost", "back"]


def test_reconnecting_gives_up_when_told_to():
    source = Reconnecting(FlakyCamera(good=1, refusals=10**6), first_delay_s=0.01,
                          max_delay_s=0.02, give_up_after_s=0.1)
    source.open()
    source.read()
    with pytest.raises(CameraLost, match="did not come back within 0.1 s: flaky: not there yet"):
        source.read()
    assert source.status == "lost"


def test_stop_interrupts_a_waiting_read():
    source = Reconnecting(FlakyCamera(good=0, refusals=10**6), first_delay_s=5.0)
    source.open()
    threading.Timer(0.05, source.stop).start()
    started = time.monotonic()
    with pytest.raises(CameraLost, match="stopped"):
        source.read()
    assert time.monotonic() - started < 2.0


def test_end_of_a_replay_is_not_a_lost_camera(folder):
    source = Reconnecting(ImageFolderSource(folder))
    source.open()
    assert len(read_all(source)) == 12
    assert source.status == "live" and not source.events


# --------------------------------------------------------------------------- open_source


def test_open_source_understands_every_kind_of_spec(folder, video, tmp_path):
    assert isinstance(open_source(str(folder)), ImageFolderSource)
    replay = open_source(str(video), loop=True)
    assert isinstance(replay, VideoFileSource) and replay.loop
    assert open_source("webcam").device == 0
    assert open_source("webcam:2").device == 2
    assert open_source("webcam:/dev/video5").device == "/dev/video5"
    assert open_source("RTSP://cam.local/live").is_stream
    assert isinstance(open_source("picamera:0"), PiCameraSource)  # built, not opened
    with pytest.raises(SourceUnavailable, match="no such file or folder: .*a source is one of"):
        open_source(str(tmp_path / "nothing-here"))
    with pytest.raises(SourceUnavailable, match="empty source"):
        open_source("  ")
