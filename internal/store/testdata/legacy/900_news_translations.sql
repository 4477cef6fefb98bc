-- news_translations holds a news item's title and content in another
-- language of the site (hi, ma). An item without one is shown in English.
-- Changes count in news_version like changes to news, so the cached
-- answers of GET /api/news see them.
CREATE TABLE news_translations (
    news_id INTEGER NOT NULL REFERENCES news (id) ON DELETE CASCADE,
    lang    TEXT NOT NULL,
    title   TEXT NOT NULL,
    content TEXT NOT NULL,
    PRIMARY KEY (news_id, lang)
);
CREATE TRIGGER news_translation_inserted AFTER INSERT ON news_translations BEGIN UPDATE news_version SET version = version + 1; END;
CREATE TRIGGER news_translation_updated AFTER UPDATE ON news_translations BEGIN UPDATE news_version SET version = version + 1; END;
CREATE TRIGGER news_translation_deleted AFTER DELETE ON news_translations BEGIN UPDATE news_version SET version = version + 1; END;
