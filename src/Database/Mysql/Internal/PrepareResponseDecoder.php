<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

use Petrel\Database\Mysql\ProtocolException;

/**
 * Incremental decoder of the response to COM_STMT_PREPARE: push packets until push()
 * returns true, then read result() or error().
 *
 * Grammar: ERR | COM_STMT_PREPARE_OK (0x00, statement id (4), columns (2), params (2),
 * filler (1), warnings (2)), then the parameter definitions and [EOF], then the column
 * definitions and [EOF]; the EOFs are absent under CLIENT_DEPRECATE_EOF.
 */
final class PrepareResponseDecoder
{
    private const FIRST = 0;
    private const PARAMS = 1;
    private const PARAMS_EOF = 2;
    private const COLUMNS = 3;
    private const COLUMNS_EOF = 4;
    private const COMPLETE = 5;

    private readonly bool $deprecateEof;
    private int $state = self::FIRST;
    private int $statementId = 0;
    private int $paramCount = 0;
    private int $columnCount = 0;
    private int $warnings = 0;
    /** @var list<ColumnDefinition> */
    private array $params = [];
    /** @var list<ColumnDefinition> */
    private array $columns = [];
    private ?ErrPacket $error = null;

    public function __construct(int $capabilities)
    {
        $this->deprecateEof = ($capabilities & Capability::DEPRECATE_EOF) !== 0;
    }

    /**
     * @return bool whether the response is complete
     *
     * @throws ProtocolException
     */
    public function push(string $payload): bool
    {
        switch ($this->state) {
            case self::FIRST:
                if (Packet::isErr($payload)) {
                    $this->error = ErrPacket::parse($payload);
                    $this->state = self::COMPLETE;

                    return true;
                }
                if (!Packet::isOk($payload) || \strlen($payload) < 9) {
                    throw new ProtocolException('Malformed COM_STMT_PREPARE response');
                }
                $reader = new PayloadReader($payload, 1);
                $this->statementId = $reader->int4();
                $this->columnCount = $reader->int2();
                $this->paramCount = $reader->int2();
                $reader->skip(1);
                $this->warnings = $reader->remaining() >= 2 ? $reader->int2() : 0;
                break;
            case self::PARAMS:
                $this->params[] = ColumnDefinition::parse($payload);
                break;
            case self::COLUMNS:
                $this->columns[] = ColumnDefinition::parse($payload);
                break;
            case self::PARAMS_EOF:
            case self::COLUMNS_EOF:
                if (!Packet::isEnd($payload, false)) {
                    throw new ProtocolException('Expected an EOF packet after the definitions');
                }
                $this->state = $this->state === self::PARAMS_EOF ? self::COLUMNS : self::COMPLETE;
                break;
            default:
                throw new \Error('PrepareResponseDecoder::push() called after the response completed');
        }
        $this->advance();

        return $this->state === self::COMPLETE;
    }

    public function isComplete(): bool
    {
        return $this->state === self::COMPLETE;
    }

    /** The prepared statement, or null when the server answered with an error. */
    public function result(): ?PrepareOk
    {
        if ($this->state !== self::COMPLETE) {
            throw new \Error('The COM_STMT_PREPARE response is not complete');
        }
        if ($this->error !== null) {
            return null;
        }

        return new PrepareOk(
            $this->statementId,
            $this->paramCount,
            $this->columnCount,
            $this->warnings,
            $this->params,
            $this->columns,
        );
    }

    public function error(): ?ErrPacket
    {
        return $this->error;
    }

    /** Moves past sections that are complete (or empty). */
    private function advance(): void
    {
        if ($this->state === self::FIRST) {
            $this->state = self::PARAMS;
        }
        if ($this->state === self::PARAMS && \count($this->params) === $this->paramCount) {
            $this->state = $this->paramCount > 0 && !$this->deprecateEof ? self::PARAMS_EOF : self::COLUMNS;
        }
        if ($this->state === self::COLUMNS && \count($this->columns) === $this->columnCount) {
            $this->state = $this->columnCount > 0 && !$this->deprecateEof ? self::COLUMNS_EOF : self::COMPLETE;
        }
    }
}
