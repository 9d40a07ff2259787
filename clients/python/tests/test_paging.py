"""maxChars and offset: a long text read to its end in windows cut at line boundaries, each saying where to
read on, and the pieces adding up to the whole."""

from __future__ import annotations

import re
import unittest

from webcapture_client.mcp_server.paging import DEFAULT_MAX_CHARS, PagingError, Window

READ_ON = re.compile(r"\n\n\[cut: characters [\d,]+ to [\d,]+ of [\d,]+\. To read on, call markdown again "
                     r"with the same arguments and offset (\d+)\.\]$")


def read_all(text: str, max_chars: int) -> tuple[list[str], list[int]]:
    pieces, offsets, offset = [], [], 0
    while True:
        answer = Window(offset, max_chars).cut(text, "markdown")
        more = READ_ON.search(answer)
        if more is None:
            return [*pieces, answer], offsets
        pieces.append(answer[:more.start()])
        offset = int(more.group(1))
        offsets.append(offset)


class PagingTest(unittest.TestCase):
    def test_a_long_text_is_read_to_its_end_cut_at_line_boundaries(self) -> None:
        text = "".join(f"line {number}: {'x' * (number % 70)}\n" for number in range(3000))
        pieces, offsets = read_all(text, 5000)
        self.assertGreater(len(pieces), 10)
        for offset in offsets:
            self.assertEqual(text[offset - 1], "\n")  # every window ends at a line's end
        self.assertEqual("\n".join(pieces[:-1]) + "\n" + pieces[-1], text)
        self.assertTrue(all(len(piece) <= 5000 for piece in pieces))

    def test_a_line_longer_than_the_window_is_cut_inside(self) -> None:
        text = "short\n" + "y" * 50 + "\nend\n"
        pieces, offsets = read_all(text, 20)
        self.assertEqual(offsets[0], 6)
        self.assertEqual("".join(pieces).replace("\n", ""), text.replace("\n", ""))

    def test_a_short_text_is_whole_and_says_nothing(self) -> None:
        self.assertEqual(Window(0, DEFAULT_MAX_CHARS).cut("# Title\nbody\n", "markdown"), "# Title\nbody\n")

    def test_an_offset_past_the_end_says_how_long_the_text_is(self) -> None:
        self.assertIn("the text is 4 characters", Window(10, 100).cut("abcd", "markdown"))

    def test_the_arguments_are_taken_out_and_checked(self) -> None:
        arguments = {"url": "https://a.test", "maxChars": 300, "offset": 12}
        self.assertEqual(Window.take(arguments), Window(12, 300))
        self.assertEqual(arguments, {"url": "https://a.test"})
        self.assertEqual(Window.take({}), Window(0, 20_000))
        for wrong in ({"maxChars": 0}, {"maxChars": 100_001}, {"maxChars": "5"}, {"offset": -1},
                      {"offset": True}):
            with self.subTest(wrong=wrong), self.assertRaises(PagingError):
                Window.take(dict(wrong))
