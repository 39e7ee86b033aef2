<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/** What ResultDecoder::push() made of one packet. */
enum ResultEvent
{
    /** Consumed (a column count or definition, an EOF after the columns); push the next one. */
    case Pending;
    /** A result set begins: its columns are in columns(); rows follow. */
    case ResultSet;
    /** One row, in row(). */
    case Row;
    /** The current result set ended; ok() has status and warnings. More may follow. */
    case ResultSetEnd;
    /** A statement without result set completed; ok() has affected rows, insert id... */
    case Ok;
    /**
     * The server reported an error, in error(). The response is then complete, except after
     * a refused local-infile request inside a multi-statement batch: keep pushing until
     * isComplete() in any case, then throw the first error.
     */
    case Error;
    /**
     * The server asked for a local file (LOAD DATA LOCAL INFILE), which we refuse: send an
     * empty packet (the next sequence id) and keep pushing. The response then completes
     * with Error (client error 2068) or with the server's own ERR.
     */
    case LocalInfileRequest;
}
