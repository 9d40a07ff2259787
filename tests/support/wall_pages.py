"""Pages shaped like the bot walls real sites serve, and ordinary pages that look like them.

Each wall keeps what its vendor's page really carries (titles, element ids, script paths, headers,
statuses); the look-alikes mention captchas, embed a widget in a form, or carry a vendor's ordinary-page
script, and must be captured. Scripts on other hosts fail to load here (no network), as they would behind
a wall the browser cannot pass; their tags stay in the DOM.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FixturePage:
    name: str
    html: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    vendor: str | None = None  # the wall it is; None for a page to capture


_FILLER = " ".join(["The committee met on Tuesday to discuss the budget for the coming year."] * 40)

CLOUDFLARE_CHALLENGE = FixturePage(
    "cloudflare-challenge",
    """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"><meta name="robots" content="noindex,nofollow"></head>
<body><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">shop.example</h1>
<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<div id="challenge-stage"></div>
<div id="challenge-body-text" class="core-msg spacer">shop.example needs to review the security of your
connection before proceeding.</div>
<form id="challenge-form" action="/?__cf_chl_f_tk=abc" method="POST"></form></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "shop.example",cType: 'managed',cRay: '8a1'};
var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1';
document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>""",
    403, {"server": "cloudflare", "cf-mitigated": "challenge", "cf-ray": "8a1-FRA"}, "Cloudflare")

# An older challenge: no cf-mitigated header, a 503 from Cloudflare with the challenge form.
CLOUDFLARE_UAM = FixturePage(
    "cloudflare-uam",
    """<!DOCTYPE HTML><html lang="en-US"><head><title>Just a moment...</title></head><body>
<table width="100%" height="100%"><tr><td align="center" valign="middle">
<div class="cf-browser-verification cf-im-under-attack"><noscript><h1>Please turn JavaScript on and reload
the page.</h1></noscript><div id="cf-content"><h1>Checking your browser before accessing shop.example.</h1>
<p>This process is automatic. Your browser will redirect to your requested content shortly.</p></div>
<form id="challenge-form" action="/?__cf_chl_jschl_tk__=x" method="POST"></form></div>
<div class="attribution">DDoS protection by Cloudflare<br>Ray ID: 8a2</div></td></tr></table>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1?ray=8a2"></script></body></html>""",
    503, {"server": "cloudflare", "cf-ray": "8a2-AMS"}, "Cloudflare")

CLOUDFLARE_BLOCK = FixturePage(
    "cloudflare-block",
    """<!DOCTYPE html><html lang="en-US"><head><title>Attention Required! | Cloudflare</title></head><body>
<div id="cf-wrapper"><div id="cf-error-details" class="cf-error-details-wrapper">
<div class="cf-wrapper cf-header cf-error-overview"><h1 data-translate="block_headline">Sorry, you have been
blocked</h1><h2 class="cf-subheadline">You are unable to access shop.example</h2></div>
<div class="cf-section cf-wrapper"><h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>
<p>This website is using a security service to protect itself from online attacks.</p></div>
<div class="cf-error-footer">Cloudflare Ray ID: <strong>8a3</strong></div></div></div></body></html>""",
    403, {"server": "cloudflare", "cf-ray": "8a3-CDG"}, "Cloudflare")

TURNSTILE_INTERSTITIAL = FixturePage(
    "turnstile-interstitial",
    """<!DOCTYPE html><html><head><title>Security check</title>
<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script></head><body>
<main><h1>Verify you are human</h1><p>Complete the check below to continue to the site.</p>
<form action="/verify" method="POST"><div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div></form></main>
</body></html>""",
    200, {}, "captcha")

AKAMAI_DENIED = FixturePage(
    "akamai-denied",
    """<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "http&#58;&#47;&#47;www&#46;shop&#46;example&#47;" on this server.<P>
Reference&#32;&#35;18&#46;4a2c1602&#46;1732400000&#46;5b1f2e3
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;4a2c1602&#46;1732400000&#46;5b1f2e3</P>
</BODY>
</HTML>""",
    403, {"server": "AkamaiGHost", "mime-version": "1.0"}, "Akamai")

DATADOME_CAPTCHA = FixturePage(
    "datadome-captcha",
    """<html lang="en"><head><title>shop.example</title><style>#cmsg{animation: A 1.5s;}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'2211F5','t':'bv','s':45593,
'e':'b1','host':'geo.captcha-delivery.com','cookie':'dd_cookie'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script>
<iframe src="https://geo.captcha-delivery.com/captcha/?initialCid=AHrlqAAAAAMA&amp;hash=2211F5"
 title="DataDome CAPTCHA" width="100%" height="100%" style="height:100vh;" frameborder="0"></iframe>
</body></html>""",
    403, {"x-datadome": "protected", "x-dd-b": "1"}, "DataDome")

PERIMETERX_HOLD = FixturePage(
    "perimeterx-hold",
    """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Access to this page has been denied</title></head><body>
<section class="container"><div class="page-title-wrapper"><div class="page-title">
<h1>Before we continue...</h1></div></div><div class="content-wrapper"><div class="content">
<p>Press &amp; Hold to confirm you are a human (and not a bot).</p><div id="px-captcha"></div>
<p>Reference ID 5b1f2e3a-aa11-11ef-b0b2-1d2f</p></div></div></section>
<script>window._pxAppId = 'PXabc123';window._pxJsClientSrc = '/abc123/init.js';
window._pxHostUrl = '/abc123/xhr';window._pxreCaptchaTheme = 'light';</script>
<script src="/abc123/captcha/captcha.js?a=c&amp;u=5b1f2e3a&amp;m=0"></script></body></html>""",
    403, {}, "PerimeterX")

RECAPTCHA_INTERSTITIAL = FixturePage(
    "recaptcha-interstitial",
    """<html><head><title>https://www.shop.example/search?q=shoes</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body>
<div style="max-width:400px;"><hr noshade size="1"><br>
<form id="captcha-form" action="index" method="post"><div id="recaptcha" class="g-recaptcha"
data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b"></div><input type="hidden" name="q" value="x">
</form><hr noshade size="1"><div style="font-size:13px;"><b>About this page</b><br><br>Our systems have
detected unusual traffic from your computer network. This page checks to see if it's really you sending
the requests, and not a robot.</div></div></body></html>""",
    429, {}, "captcha")

HCAPTCHA_INTERSTITIAL = FixturePage(
    "hcaptcha-interstitial",
    """<!doctype html><html><head><title>Are you a robot?</title>
<script src="https://js.hcaptcha.com/1/api.js" async defer></script></head>
<body><main><h1>One more step</h1><p>Please complete the security check to access shop.example.</p>
<form method="POST" action="/__verify"><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001">
</div><button type="submit">Continue</button></form></main></body></html>""",
    200, {}, "captcha")

WALLS = (CLOUDFLARE_CHALLENGE, CLOUDFLARE_UAM, CLOUDFLARE_BLOCK, TURNSTILE_INTERSTITIAL, AKAMAI_DENIED,
         DATADOME_CAPTCHA, PERIMETERX_HOLD, RECAPTCHA_INTERSTITIAL, HCAPTCHA_INTERSTITIAL)

LOOK_ALIKES = (
    FixturePage("contact-form-with-recaptcha", f"""<!doctype html><html><head><title>Contact us | Example Shop</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head><body>
<header><nav><a href="/">Home</a> <a href="/shop">Shop</a></nav></header><main><h1>Contact us</h1>
<p>{_FILLER}</p><form action="/send" method="post"><label>Name <input name="name"></label>
<label>Message <textarea name="message"></textarea></label>
<div class="g-recaptcha" data-sitekey="6LfwuyUTAAAAAOAmoS0fdqijC2PbbdH4kjq62Y1b"></div>
<button>Send</button></form><p>This site is protected by reCAPTCHA and the Google Privacy Policy applies.</p>
</main></body></html>"""),
    FixturePage("article-about-captchas", f"""<!doctype html><html><head><title>Why every site asks if you
are a robot</title></head><body><article><h1>Why every site asks: are you a robot?</h1>
<p>CAPTCHA stands for Completely Automated Public Turing test. Pages titled "Just a moment..." come from
Cloudflare; DataDome serves its captcha from captcha-delivery.com; PerimeterX asks you to Press &amp; Hold.
A page that says "Access Denied" with a Reference # is Akamai's.</p><pre>&lt;script
src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"&gt;&lt;/script&gt;</pre>
<p>{_FILLER}</p></article></body></html>"""),
    FixturePage("login-with-turnstile", """<!doctype html><html><head><title>Sign in - Example</title>
<script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script></head><body>
<main><h1>Sign in</h1><form action="/login" method="post"><label>Email <input name="email"></label>
<label>Password <input type="password" name="password"></label>
<div class="cf-turnstile" data-sitekey="0x4AAAAAAA"></div><button>Sign in</button></form>
<p><a href="/forgot">Forgot your password?</a></p></main></body></html>"""),
    # A site behind Cloudflare with Bot Management: its ordinary pages carry the challenge platform's script.
    FixturePage("cloudflare-served-page", f"""<!doctype html><html><head><title>Just a moment with our
founder | Example Blog</title></head><body><article><h1>Just a moment with our founder</h1><p>{_FILLER}</p>
</article><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js" async></script></body></html>""",
                200, {"server": "cloudflare", "cf-ray": "8a4-LHR"}),
    FixturePage("access-denied-film-review", f"""<!doctype html><html><head><title>Access Denied</title></head>
<body><article><h1>Access Denied</h1><p>A review of the film. The heist takes a turn when the vault says
"Access Denied". {_FILLER}</p></article></body></html>"""),
    FixturePage("not-found-page", """<!doctype html><html><head><title>Page not found</title></head><body>
<h1>404</h1><p>We could not find that page. Are you a robot? No? Then try the search.</p></body></html>""",
                404),
    FixturePage("datadome-protected-page", f"""<!doctype html><html><head><title>Shoes | Example Shop</title>
<script src="https://js.datadome.co/tags.js" async></script></head><body><main><h1>Shoes</h1>
<p>{_FILLER}</p></main></body></html>""", 200, {"x-datadome": "protected"}),
)
