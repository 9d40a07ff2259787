"""Chromium flags for capturing untrusted pages inside Lambda, each with the reason it is here.

Playwright already passes its own automation set (see chromiumSwitches in its driver): --headless,
--no-sandbox, --disable-dev-shm-usage (Lambda's /dev/shm is too small for Chromium's shared memory),
--disable-breakpad (no crash dumps), --disable-background-networking, --disable-component-update,
--disable-extensions, --disable-sync, --hide-scrollbars, --mute-audio, --force-color-profile=srgb,
--no-first-run and more; they are not repeated here.

Deliberately absent, although @sparticuz/chromium suggests them:
  --single-process                  the browser exits when the context that owns the renderer closes, and we
                                    close a context after every request
  --disable-web-security            would let any captured page read other origins' responses
  --allow-running-insecure-content  would let an https page pull scripts over plain http
  --disable-setuid-sandbox          meaningless next to --no-sandbox
  --disable-features=...            Chromium honours only the last --disable-features switch, so any list
                                    here would silently replace Playwright's own (checked: with one added,
                                    the renderers' list lost HttpsUpgrades and the rest). Site isolation,
                                    which sparticuz turns off that way, is not on in this headless build
                                    anyway (checked: three sites' frames shared one renderer).
"""

from __future__ import annotations

LAMBDA_FLAGS: tuple[str, ...] = (
    # Lambda has no GPU. No GL switch: without a GPU Chromium composites pages with Skia's software
    # rasteriser and runs WebGL on SwiftShader (shipped beside the binary), so pages that draw with WebGL
    # are captured as they look. Forcing everything through SwiftShader (--use-gl=angle
    # --use-angle=swiftshader) costs every capture about a third more CPU, WebGL or not;
    # --use-angle=swiftshader-webgl is about as fast (docs/benchmarks.md, "GL mode and capture
    # time"). Current Chromium runs WebGL on SwiftShader only with this switch (Playwright passes it too;
    # here so that WebGL does not depend on Playwright's list). Running the GPU service in the browser
    # process saves a process.
    "--enable-unsafe-swiftshader",
    "--in-process-gpu",
    "--ignore-gpu-blocklist",
    # Glyph hinting varies with FreeType settings; no hinting gives the same text rendering on every host.
    "--font-render-hinting=none",
    # Nothing beyond the page's own requests leaves the browser: no hyperlink-auditing pings, no reports
    # about Google's reachability.
    "--no-pings",
    "--disable-domain-reliability",
    # Even with breakpad off, be sure no crash handler process starts or writes dumps into /tmp.
    "--disable-crash-reporter",
    "--noerrdialogs",
    # Headless has no print preview; its component only costs start-up time.
    "--disable-print-preview",
    # No zygote: each renderer is a fresh exec of the binary. The zygote (renderers forked already
    # initialised) saves a warm capture of a plain page about a quarter of its browser CPU, but with it
    # Chromium died with SIGSEGV at launch in 11 of about 230 cold starts, none in 77 without it side by
    # side (docs/benchmarks.md, "Launch crashes"). The crash is a getenv/setenv race inside Chromium, seen
    # without the zygote too, which lifecycle._browser_env avoids; with that, the zygote's warm CPU is worth
    # measuring against the cold start. Without it the browser starts sooner, which the cold start needs.
    "--no-zygote",
)
