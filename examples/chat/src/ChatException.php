<?php

declare(strict_types=1);

namespace Chat;

final class ChatException extends \RuntimeException
{
}
