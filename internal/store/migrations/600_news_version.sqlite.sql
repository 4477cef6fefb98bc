-- news_version counts changes to the news table, whichever process makes
-- them (`freightsite news add` runs beside the server): the server keeps
-- GET /api/news answers in memory and serves them until this changes.
CREATE TABLE news_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO news_version (id, version) VALUES (1, 0);
CREATE TRIGGER news_inserted AFTER INSERT ON news BEGIN UPDATE news_version SET version = version + 1; END;
CREATE TRIGGER news_updated AFTER UPDATE ON news BEGIN UPDATE news_version SET version = version + 1; END;
CREATE TRIGGER news_deleted AFTER DELETE ON news BEGIN UPDATE news_version SET version = version + 1; END;
