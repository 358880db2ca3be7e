package dev.corobridge.examples

import kotlinx.coroutines.yield

/** A user of the examples' user service. */
data class User(val id: String, val name: String)

/** A Kotlin service with suspend functions, as the README's Java example calls it. */
class Users {
    /** The signed-in user. */
    suspend fun current(): User {
        yield()
        return User("me", "Me")
    }

    /** The user called [id]. */
    suspend fun load(id: String): User {
        yield()
        return User(id, "User $id")
    }
}
