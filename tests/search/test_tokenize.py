from scriptorium.core.search import tokenize


def test_cjk_run_yields_run_chars_and_pairs():
    tokens = tokenize("成本是怎么回事")
    assert tokens[0] == "成本是怎么回事"
    assert tokens[1:8] == list("成本是怎么回事")
    assert tokens[8:] == ["成本", "本是", "是怎", "怎么", "么回", "回事"]


def test_words_casefolded_punctuation_and_underscore_split():
    assert tokenize("Build-Cache, STRASSE_x Straße") == ["build", "cach", "strass", "x", "strass"]


def test_mixed_script_word_is_not_split():
    assert tokenize("abc가나") == ["abc가나"]


def test_japanese_and_korean_runs_are_segmented():
    assert "タワ" in tokenize("東京タワー") and "東" in tokenize("東京タワー")
    assert "한국" in tokenize("한국어")


def test_english_stop_words_dropped():
    assert tokenize("what is the size of the cache") == ["what", "size", "cach"]


def test_english_word_forms_share_one_stem():
    assert tokenize("tests tested testing") == ["test"] * 3
    assert tokenize("the caches evicted") == tokenize("cache eviction") == ["cach", "evict"]
    assert tokenize("running runners") == ["run", "runner"]


def test_the_vendored_stop_words_are_bm25s_english_list():
    from bm25s.stopwords import STOPWORDS_EN

    from scriptorium.core.search.tokenize import STOPWORDS

    assert STOPWORDS == frozenset(STOPWORDS_EN)
