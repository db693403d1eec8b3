"""Word banks of three fictional software projects, for the trackers' seed content.

Each component lists its source files, the features a bug can hit, the conditions
that trigger bugs and the capabilities people ask for, so an issue's title, body,
comments and the commit that fixes it all talk about the same part of the code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Component:
    name: str
    description: str
    files: tuple[str, ...]
    features: tuple[str, ...]  # "thumbnail generation"
    conditions: tuple[str, ...]  # "when the EXIF orientation tag is missing"
    capabilities: tuple[str, ...]  # "a dark theme for the album page"


@dataclass(frozen=True)
class Profile:
    key: str
    name: str
    tagline: str
    package: str
    components: tuple[Component, ...]
    dependencies: tuple[str, ...]


HARBOR = Profile(
    key="harbor", name="Harbor", package="harbor",
    tagline="a self-hosted photo library with albums, sharing and face-free search",
    dependencies=("Pillow", "SQLAlchemy", "Jinja2", "libvips", "ExifRead", "Celery"),
    components=(
        Component("importer", "Scans folders and phone uploads into the library",
                  ("harbor/importer/scan.py", "harbor/importer/exif.py",
                   "harbor/importer/dedupe.py"),
                  ("the folder scanner", "duplicate detection", "EXIF date parsing",
                   "the upload queue", "HEIC import", "sidecar file handling"),
                  ("when a folder name contains an emoji", "for photos taken before 1970",
                   "when two files share the same checksum", "on a network share mounted over SMB",
                   "after the phone clock was set to the wrong time zone",
                   "when a RAW file has no embedded preview"),
                  ("resumable imports after a crash", "a dry-run mode for the scanner",
                   "import from a Google Takeout archive", "per-folder ignore rules")),
        Component("thumbnails", "Generates and caches resized images",
                  ("harbor/thumbs/render.py", "harbor/thumbs/cache.py"),
                  ("thumbnail generation", "the thumbnail cache", "panorama previews",
                   "video poster frames", "orientation handling"),
                  ("when the EXIF orientation tag is missing", "for images wider than 20000 px",
                   "when the cache directory is on a full disk", "for animated GIFs",
                   "after the image was rotated in the editor"),
                  ("WebP thumbnails", "a setting for the cache size limit",
                   "blurred placeholders while thumbnails load")),
        Component("albums", "Albums, tags and smart collections",
                  ("harbor/albums/models.py", "harbor/albums/views.py",
                   "harbor/albums/smart.py"),
                  ("album sorting", "smart albums", "tag renaming", "the album cover picker",
                   "bulk tagging"),
                  ("when an album holds more than 10,000 photos", "after a tag was renamed",
                   "when two albums have the same title", "for photos without a capture date"),
                  ("nested albums", "sorting albums by the date of the newest photo",
                   "a slideshow mode with captions", "album descriptions in Markdown")),
        Component("sharing", "Public links and guest uploads",
                  ("harbor/sharing/links.py", "harbor/sharing/guest.py"),
                  ("public share links", "link expiry", "guest uploads", "download as ZIP"),
                  ("when the link has expired", "for albums with videos",
                   "when the guest's browser blocks cookies",
                   "behind a reverse proxy with a path prefix"),
                  ("password-protected share links", "a download counter per link",
                   "an expiry reminder e-mail")),
        Component("web ui", "Templates, styles and the JavaScript gallery",
                  ("harbor/web/templates/gallery.html", "harbor/web/static/gallery.js",
                   "harbor/web/static/harbor.css"),
                  ("the lightbox", "keyboard navigation", "infinite scrolling",
                   "the date picker", "the mobile layout"),
                  ("on Safari 16", "with the screen reader turned on",
                   "when the window is narrower than 360 px", "in the dark theme"),
                  ("a dark theme", "keyboard shortcuts for rating photos",
                   "a map view of geotagged photos")),
    ),
)

LEDGERLY = Profile(
    key="ledgerly", name="Ledgerly", package="ledgerly",
    tagline="invoicing and bookkeeping for freelancers and small agencies",
    dependencies=("Django", "WeasyPrint", "python-dateutil", "Babel", "stripe"),
    components=(
        Component("invoices", "Invoice drafting, numbering and PDF output",
                  ("ledgerly/invoices/models.py", "ledgerly/invoices/pdf.py",
                   "ledgerly/invoices/numbering.py"),
                  ("invoice numbering", "the PDF export", "credit notes", "recurring invoices",
                   "line item discounts"),
                  ("when the fiscal year starts in April", "for invoices in Swiss francs",
                   "when a line item has a negative quantity", "after a draft was duplicated"),
                  ("a custom footer per client", "partial payments on one invoice",
                   "invoice templates with the client's logo")),
        Component("payments", "Bank imports and payment matching",
                  ("ledgerly/payments/camt.py", "ledgerly/payments/matching.py"),
                  ("payment matching", "the CAMT.053 import", "refunds", "the Stripe webhook"),
                  ("when the bank reference has trailing spaces",
                   "for payments split across two invoices",
                   "when the webhook arrives twice", "for statements with more than 500 entries"),
                  ("matching rules by amount and date window", "import of OFX files")),
        Component("taxes", "VAT rates, reports and exports",
                  ("ledgerly/taxes/rates.py", "ledgerly/taxes/report.py"),
                  ("the quarterly VAT report", "reduced tax rates", "reverse charge"),
                  ("for clients in another EU country", "when a rate changes mid-quarter"),
                  ("an annual tax summary", "an export for the accountant as CSV")),
        Component("clients", "Client records and contacts",
                  ("ledgerly/clients/models.py", "ledgerly/clients/views.py"),
                  ("client search", "contact merging", "the client address book"),
                  ("when two contacts share an e-mail address", "for client names with accents"),
                  ("tags on clients", "a client portal for downloading invoices")),
    ),
)

TIDEWATCH = Profile(
    key="tidewatch", name="Tidewatch", package="tidewatch",
    tagline="a monitoring agent and dashboard for small server fleets",
    dependencies=("psutil", "aiohttp", "SQLite", "uPlot", "PyYAML"),
    components=(
        Component("agent", "The collector that runs on every host",
                  ("tidewatch/agent/collect.py", "tidewatch/agent/disk.py",
                   "tidewatch/agent/net.py"),
                  ("disk usage collection", "the network counters", "process sampling",
                   "agent self-update"),
                  ("on hosts with more than 64 CPUs", "when a mount point disappears",
                   "after the system clock jumps backwards", "on ARM boards"),
                  ("collection of systemd unit states", "a per-host sampling interval")),
        Component("alerts", "Thresholds, notifications and silences",
                  ("tidewatch/alerts/rules.py", "tidewatch/alerts/notify.py"),
                  ("alert deduplication", "e-mail notifications", "silences", "flap detection"),
                  ("when two rules fire for the same host", "during a daylight saving change",
                   "when the mail server rejects the sender"),
                  ("Matrix notifications", "alert escalation after 30 minutes")),
        Component("dashboard", "Charts and the host overview",
                  ("tidewatch/web/charts.js", "tidewatch/web/views.py"),
                  ("the host overview", "chart zooming", "the CPU heat map"),
                  ("with more than 200 hosts", "when a host has no data for the range"),
                  ("saved dashboard layouts", "a compact table view")),
    ),
)

PROFILES = (HARBOR, LEDGERLY, TIDEWATCH)
