<?php

declare(strict_types=1);

namespace Petrel\Database\Mysql\Internal;

/**
 * The `tls` option of a MySQL connection, as libmysqlclient's --ssl-mode names them:
 *
 *   disable  never; prefer: when the server offers it (encrypted, certificate not checked);
 *   require  always, or fail (certificate not checked); verify: always, certificate checked
 *            against the CA (`tls_ca`, else the system store) and the host name.
 */
enum TlsMode: string
{
    case Disable = 'disable';
    case Prefer = 'prefer';
    case Require = 'require';
    case Verify = 'verify';

    public function wants(bool $serverOffers): bool
    {
        return match ($this) {
            self::Disable => false,
            self::Prefer => $serverOffers,
            self::Require, self::Verify => true,
        };
    }
}
