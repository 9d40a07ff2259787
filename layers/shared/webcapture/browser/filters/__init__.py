"""Page filters: ad and tracker blocking, the compiled filter lists, cookie banners."""
