"""Starting Chromium: the pinned pack, its unpacking, Node for the driver, launch flags, processes."""
