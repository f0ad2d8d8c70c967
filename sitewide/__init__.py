"""What both apps share with the site and that knows neither: the refusal of text that cannot be
stored (a middleware, the API's parsers, `single_line`), the engine's sentences said in the
reader's language (`localize`) and download file names. It imports no app and no `config`, so
annotation and evaluation may both use it (tests/test_the_layers_import_one_way.py)."""
