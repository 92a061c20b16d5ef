from playground.retrieval.tokenize import stop_words, tokenize, tokenize_many


def test_lower_cases_drops_stop_words_and_stems():
    assert tokenize("The Rivers of FRANCE are flowing") == ["river", "franc", "flow"]


def test_without_stemming_keeps_whole_words():
    assert tokenize("The Rivers of FRANCE are flowing", stem=False) == ["rivers", "france", "flowing"]


def test_underscores_and_punctuation_split_words():
    assert tokenize("Super_Bowl_50: Denver's win!", stem=False) == ["super", "bowl", "50", "denver", "win"]


def test_stop_word_only_text_gives_no_tokens():
    assert tokenize("what is the of and") == []
    assert {"the", "what", "is"} <= stop_words()


def test_tokenize_many_reports_progress_and_matches_tokenize():
    calls = []
    texts = ["Paris is big", "Berlin rivers"]
    tokens = tokenize_many(texts, on_progress=lambda done, total, message: calls.append((done, total)))
    assert tokens == [tokenize(text) for text in texts]
    assert calls[-1] == (2, 2)


def test_tokenize_many_stems_each_distinct_word_once_with_the_same_tokens():
    """A corpus-sized run: stemming the vocabulary once must give exactly what stemming every token gives."""
    from tests.retrieval.conftest import generated_passages

    texts = [f"{p.title}\n{p.text} Running runners ran; the Rivers' rivering" for p in generated_passages(400)]
    for stem in (True, False):
        assert tokenize_many(texts, stem) == [tokenize(text, stem) for text in texts]


def test_tokenize_to_ids_numbers_the_same_tokens():
    from playground.retrieval.tokenize import tokenize_to_ids
    from tests.retrieval.conftest import generated_passages

    texts = [f"{p.title}\n{p.text} Running runners ran" for p in generated_passages(200)] + ["the of and", ""]
    for stem in (True, False):
        ids, vocab = tokenize_to_ids(texts, stem)
        names = {i: token for token, i in vocab.items()}
        assert [[names[i] for i in doc] for doc in ids] == [tokenize(text, stem) for text in texts]
        assert sorted(vocab.values()) == list(range(len(vocab)))
